# ci/build.mk: the end-to-end uses (make demo, the CI scripts, the docs): their
# end-to-end tests and what make install puts in place for them.
E2E_TESTS += tests/e2e/demo.sh tests/e2e/ci-compare-builds.sh tests/e2e/ci-capture.sh tests/e2e/demo-docs.sh
E2E_TESTS += tests/e2e/info.sh
# ci/fleet under GNU parallel: a failed capture named, the rest merged, a run resumed
E2E_TESTS += tests/e2e/fleet.sh
# a root ci/capture and ljleak beside a hostile user, and its steps attacked from a terminal (docs/security.md)
E2E_TESTS += tests/e2e/security.sh tests/e2e/security-steps.sh
INSTALL_TARGETS += install-ci-docs

# The man page, and the CI scripts as ljleak-compare-builds, ljleak-capture and ljleak-fleet
# beside the ljleak binary (where they look for it first).
.PHONY: install-ci-docs
install-ci-docs: all
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/bin
	install -m 644 docs/ljleak.1 $(DESTDIR)$(PREFIX)/share/man/man1/ljleak.1
	install -m 755 ci/compare-builds $(DESTDIR)$(PREFIX)/bin/ljleak-compare-builds
	install -m 755 ci/capture $(DESTDIR)$(PREFIX)/bin/ljleak-capture
	install -m 755 ci/fleet $(DESTDIR)$(PREFIX)/bin/ljleak-fleet
# nginx with Debian's Lua module on OpenResty's LuaJIT (privately unpacked),
# captured worker by worker by ci/capture; its load client.
E2E_TESTS += tests/e2e/nginx.sh tests/e2e/nginx-module.sh
# start{} in init_by_lua and in init_worker_by_lua of a real nginx, with env directives
E2E_TESTS += tests/e2e/nginx-start.sh
$(BUILD)/bench/nginx_client: bench/nginx_client.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< -lpthread
