# container/build.mk: the generic containers every other stage may use (array growth, hash
# tables), below all of them: they include nothing of the project's but each other.
# container/array.c: the one growth of arrays; container/index_table.c: open addressing over items kept elsewhere
container_SRCS := container/array.c container/index_table.c
# container/array.c: growth and its overflow checks (container/index_table.c: tests/test_merge.c, as merge finds its sites)
TEST_SUITES += test_container
test_container_LIBS = container
