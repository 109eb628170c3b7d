/* cli/attach_gdb.c: ljleak attach's debugger step: gdb stops the process where it is safe to load the collector, calls one of its attach entries, and leaves. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/* The script gdb runs (Python, which Debian's gdb has). Its lines to the front end begin with
 * "ljleak-attach: ". A stop is safe when the thread is in a system call (the bytes before pc are
 * x86-64's syscall instruction) and no frame of its stack is the allocator's or the dynamic
 * loader's: dlopen takes their locks. A process found elsewhere runs on to its next blocking
 * system call (catch syscall); past the deadline no call starts. Each call into the process is a
 * round of ptrace stops while it stands still, 5 to 20 ms on a loaded machine, so an attach
 * makes two (it made 15, then 7): dlopen, and the collector's one entry for the debugger, whose
 * address is the library's base (the first word of dlopen's handle, a link_map) plus the
 * symbol's value, read from the file's .dynsym before gdb attaches. Its strings and the buffer
 * its message comes back in lie below the stack pointer, past the red zone of the function
 * stopped in its system call; the stack pointer is lowered over them for the calls, whose frames
 * gdb builds below it, and put back before gdb leaves. A signal the process gets while gdb has
 * it is passed to it without a stop (its handler runs in the call, as it would in the process's
 * own dlopen), and a call that a signal still ends (SIGINT) is unwound: gdb left the process in
 * the middle of dlopen, on the lowered stack, and it crashed when it went on. Before any call the
 * process stopped is checked to be the one attach began with (its start time and effective uid):
 * the pid may be another process's by then, or the process may have become su. */
static const char attach_gdb_script[] =
    "import gdb, os, stat, struct, sys, time\n"
    "DEADLINE = time.time() + WAIT\n"
    "gdb.execute('set pagination off')\n"
    "gdb.execute('set confirm off')\n"
    "gdb.execute('set unwindonsignal on')\n"
    "gdb.execute('handle all nostop noprint pass', to_string=True)\n"
    "UNSAFE = ('malloc', 'calloc', 'realloc', 'free', 'memalign', '_int_', 'tcache', 'arena',\n"
    "          '_dl_', 'dl_open', 'dlopen', 'dlclose', 'dl_catch', 'lj_alloc', 'lj_mem_',\n"
    "          'lj_gc_', 'fork', 'ljleak', 'coll_')\n"
    /* x86-64's numbers, not names: a name needs gdb's table of the target's ABI, which it
     * did not always have ("Unknown syscall name" now and then). In order: read write readv
     * writev pread64 pwrite64 recvfrom sendto recvmsg sendmsg nanosleep clock_nanosleep select
     * pselect6 poll ppoll epoll_wait epoll_pwait accept accept4 wait4 waitid pause
     * rt_sigsuspend rt_sigtimedwait. */
    "BLOCKING = ('0 1 19 20 17 18 45 44 47 46 35 230 23 270 7 271 232 281 43 288 61 247 34 '\n"
    "            '130 128')\n"
    "MESSAGE = 1024\n"
    "def dynsym_value(path, name):\n"
    "    with open(path, 'rb') as f:\n"
    "        elf = f.read()\n"
    "    if elf[:4] != b'\\x7fELF' or elf[4] != 2 or elf[5] != 1:\n"
    "        return None\n"
    "    shoff, = struct.unpack_from('<Q', elf, 0x28)\n"
    "    shentsize, shnum = struct.unpack_from('<HH', elf, 0x3a)\n"
    "    sections = [struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)\n"
    "                for i in range(shnum)]\n"
    "    for sh in sections:\n"
    "        if sh[1] != 11:\n"
    "            continue\n"
    "        strtab = sections[sh[6]]\n"
    "        for at in range(sh[4], sh[4] + sh[5], 24):\n"
    "            st_name, st_info, st_other, st_shndx, st_value, st_size = \\\n"
    "                struct.unpack_from('<IBBHQQ', elf, at)\n"
    "            end = elf.index(b'\\0', strtab[4] + st_name)\n"
    "            if st_shndx and elf[strtab[4] + st_name:end] == name:\n"
    "                return st_value\n"
    "    return None\n"
    "try:\n"
    "    ENTRY = dynsym_value(SO.decode('utf-8', 'surrogateescape'), b'ljleak_collector_attach_step')\n"
    "except (OSError, ValueError, IndexError, struct.error):\n"
    "    ENTRY = None\n"
    "LIBRARIES = (b'/libc.so', b'/ld-linux', b'/libluajit')\n"
    "COPY_MAX = 256 << 20\n"
    "def verified(name, dev, ino):\n"
    "    try:\n"
    "        fd = os.open(name, os.O_PATH | os.O_CLOEXEC)\n"
    "    except OSError:\n"
    "        return None\n"
    "    st = os.fstat(fd)\n"
    "    if (stat.S_ISREG(st.st_mode) and st.st_size <= COPY_MAX\n"
    "            and (dev is None or (st.st_dev, st.st_ino) == (dev, ino))):\n"
    "        return fd\n"
    "    os.close(fd)\n"
    "    return None\n"
    /* A copy is a file of no name (O_TMPFILE) that gdb holds open and loads by its descriptor:
     * it goes with gdb however attach ends (a SIGKILL left up to 5 copies of 256 MiB behind).
     * A named file in the private directory where the file system has no such files. */
    "def private_file(n, data):\n"
    "    try:\n"
    "        fd = os.open(PRIVATE, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600)\n"
    "        path = None\n"
    "    except (AttributeError, OSError):\n"
    "        path = os.path.join(PRIVATE, b'%d' % n)\n"
    "        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600)\n"
    "    with os.fdopen(fd, 'wb', closefd=path is not None) as f:\n"
    "        f.write(data)\n"
    "    return path or b'/proc/self/fd/%d' % fd\n"
    "def quiet_copy(fd, n):\n"
    "    with open('/proc/self/fd/%d' % fd, 'rb') as f:\n"
    "        elf = bytearray(f.read(COPY_MAX))\n"
    "    os.close(fd)\n"
    "    if elf[:6] != b'\\x7fELF\\x02\\x01':\n"
    "        raise ValueError('not a 64-bit ELF file')\n"
    "    shoff, = struct.unpack_from('<Q', elf, 0x28)\n"
    "    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)\n"
    "    names, = struct.unpack_from('<Q', elf, shoff + shstrndx * shentsize + 24)\n"
    "    for at in range(shoff, shoff + shnum * shentsize, shentsize):\n"
    "        name = names + struct.unpack_from('<I', elf, at)[0]\n"
    "        if elf[name:name + 10].startswith((b'.debug', b'.zdebug', b'.gnu_debug', b'.gdb_index')):\n"
    "            struct.pack_into('<I', elf, at + 4, 0)\n"
    "    phoff, = struct.unpack_from('<Q', elf, 0x20)\n"
    "    phentsize, phnum = struct.unpack_from('<HH', elf, 0x36)\n"
    "    loads = [struct.unpack_from('<IIQQ', elf, phoff + i * phentsize) for i in range(phnum)]\n"
    "    path = private_file(n, elf)\n"
    "    return path, min([p[3] for p in loads if p[0] == 1] or [0]) & ~0xfff\n"
    "def kind_of(path, dev, ino, exe, so):\n"
    "    if (dev, ino) == (exe.st_dev, exe.st_ino):\n"
    "        return 'exe'\n"
    "    if path == so:\n"
    "        return 'so'\n"
    "    return next((l for l in LIBRARIES if l in path), None)\n"
    "def copy_symbols():\n"
    "    exe = os.stat('/proc/%d/exe' % PID)\n"
    "    so = os.path.realpath(SO)\n"
    "    copies, done = [], set()\n"
    "    with open('/proc/%d/maps' % PID, 'rb') as f:\n"
    "        lines = f.read().splitlines()\n"
    "    for line in lines:\n"
    "        fields = line.split(None, 5)\n"
    "        if len(fields) < 6 or int(fields[2], 16) != 0:\n"
    "            continue\n"
    "        major, minor = [int(d, 16) for d in fields[3].split(b':')]\n"
    "        dev, ino = os.makedev(major, minor), int(fields[4])\n"
    "        kind = kind_of(fields[5], dev, ino, exe, so)\n"
    "        if kind is None or kind in done:\n"
    "            continue\n"
    "        done.add(kind)\n"
    "        start, end = [int(a, 16) for a in fields[0].split(b'-')]\n"
    "        fd = verified('/proc/%d/map_files/%x-%x' % (PID, start, end), None, None)\n"
    "        if fd is None:\n"
    "            fd = verified(fields[5], dev, ino)\n"
    "        try:\n"
    "            path, lowest = quiet_copy(fd, len(copies))\n"
    "        except (TypeError, ValueError, IndexError, struct.error):\n"
    "            continue\n"
    "        copies.append((kind == 'exe', line, path, start - lowest))\n"
    "    return copies\n"
    "def load_symbols():\n"
    "    with open('/proc/%d/maps' % PID, 'rb') as f:\n"
    "        lines = set(f.read().splitlines())\n"
    "    for main, line, path, offset in sorted(COPIES, key=lambda c: not c[0]):\n"
    "        if line in lines:\n"
    "            command = 'symbol-file' if main else 'add-symbol-file'\n"
    "            name = ''.join(c if c.isalnum() or c in '/._-' else '\\\\' + c\n"
    "                           for c in path.decode('utf-8', 'surrogateescape'))\n"
    "            gdb.execute('%s %s -o %d' % (command, name, offset), to_string=True)\n"
    "try:\n"
    "    COPIES, COPY_ERROR = copy_symbols(), None\n"
    "except Exception as e:\n"
    "    COPIES, COPY_ERROR = [], 'cannot read the symbols of its files: %s' % e\n"
    "def say(kind, text=''):\n"
    "    print('ljleak-attach: %s %s' % (kind, text))\n"
    "    sys.stdout.flush()\n"
    "def unsafe_frame():\n"
    "    f = gdb.newest_frame()\n"
    "    while f is not None:\n"
    "        name = f.name() or ''\n"
    "        if any(u in name for u in UNSAFE):\n"
    "            return name\n"
    "        f = f.older()\n"
    "    return None\n"
    "def in_syscall():\n"
    "    pc = int(gdb.parse_and_eval('$pc'))\n"
    "    return gdb.selected_inferior().read_memory(pc - 2, 2).tobytes() == b'\\x0f\\x05'\n"
    "def safe_thread():\n"
    "    for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):\n"
    "        t.switch()\n"
    "        if in_syscall() and unsafe_frame() is None:\n"
    "            return True\n"
    "    return False\n"
    "def same_process():\n"
    "    pid = gdb.selected_inferior().pid\n"
    "    with open('/proc/%d/stat' % pid, 'rb') as f:\n"
    "        started = int(f.read().rsplit(b')', 1)[1].split()[19])\n"
    "    with open('/proc/%d/status' % pid, 'rb') as f:\n"
    "        uid = [int(l.split()[2]) for l in f if l.startswith(b'Uid:')][0]\n"
    "    if started != STARTED:\n"
    "        return 'another process has its pid now'\n"
    "    if uid != UID:\n"
    "        return 'its effective uid is %d now, not %d (it ran another program)' % (uid, UID)\n"
    "    return None\n"
    "def call(expr):\n"
    "    return gdb.parse_and_eval(expr)\n"
    "def run():\n"
    "    if ENTRY is None:\n"
    "        say('failed', 'no ljleak_collector_attach_step in ' + SO.decode('utf-8', 'replace'))\n"
    "        return\n"
    "    if COPY_ERROR is not None:\n"
    "        say('failed', COPY_ERROR)\n"
    "        return\n"
    "    load_symbols()\n"
    "    if not safe_thread():\n"
    "        gdb.execute('catch syscall ' + BLOCKING, to_string=True)\n"
    "        while True:\n"
    "            say('waiting')\n"
    "            gdb.execute('continue', to_string=True)\n"
    "            if time.time() > DEADLINE:\n"
    "                say('nosafe')\n"
    "                return\n"
    "            if in_syscall() and unsafe_frame() is None:\n"
    "                break\n"
    "        gdb.execute('delete', to_string=True)\n"
    "    changed = same_process()\n"
    "    if changed is not None:\n"
    "        say('changed', changed)\n"
    "        return\n"
    "    say('calling')\n"
    "    texts = (SO, STEP.encode(), REQUEST, STATE)\n"
    "    b = b''.join(t + b'\\0' for t in texts)\n"
    "    sp = int(gdb.parse_and_eval('$sp'))\n"
    "    block = (sp - 128 - len(b) - MESSAGE) & ~15\n"
    "    inferior = gdb.selected_inferior()\n"
    "    inferior.write_memory(block, b + bytes(MESSAGE))\n"
    "    at, o = [], block\n"
    "    for t in texts:\n"
    "        at.append(o)\n"
    "        o += len(t) + 1\n"
    "    gdb.execute('set $sp = %d' % block, to_string=True)\n"
    "    try:\n"
    "        step(at, o, inferior)\n"
    "    finally:\n"
    "        gdb.execute('set $sp = %d' % sp, to_string=True)\n"
    "def step(at, message, inferior):\n"
    "    handle = int(call('(void *)dlopen((char *)%d, 2)' % at[0]))\n"
    "    if handle == 0:\n"
    "        say('noload', call('(char *)dlerror()').string())\n"
    "        return\n"
    "    base, = struct.unpack('<Q', inferior.read_memory(handle, 8).tobytes())\n"
    "    rc = int(call('((int (*)(const char *, const char *, const char *, char *, unsigned long))%d)'\n"
    "                  '((char *)%d, (char *)%d, (char *)%d, (char *)%d, %d)'\n"
    "                  % (base + ENTRY, at[1], at[2], at[3], message, MESSAGE)))\n"
    "    text = inferior.read_memory(message, MESSAGE).tobytes().split(b'\\0')[0]\n"
    "    text = text.decode('utf-8', 'replace')\n"
    "    if STEP == 'attach':\n"
    "        say('armed' if rc == 0 else 'refused', text)\n"
    "    elif STEP == 'cancel':\n"
    "        say('cancelled' if rc == 1 else 'ran', text)\n"
    "    else:\n"
    "        say('polled')\n"
    "def main():\n"
    "    try:\n"
    "        run()\n"
    "    except Exception as e:\n"
    "        say('failed', str(e).replace('\\n', ' '))\n"
    "    gdb.execute('detach', to_string=True)\n";

/* text as a Python bytes literal, every byte escaped. */
static void python_bytes(FILE *f, const char *name, const char *text)
{
  fprintf(f, "%s = b'", name);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    fprintf(f, "\\x%02x", *p);
  fputs("'\n", f);
}

/* Removes the private directory dir and the files in it (the script, gdb's copies). */
static void remove_private(const char *dir)
{
  DIR *d = opendir(dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d));)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
        unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  rmdir(dir);
}

/* Writes the script with its values into a new private directory, dir; the script's name into
 * path. 0 or -1 (nothing left behind). */
static int write_script(char dir[PATH_MAX], char path[PATH_MAX + 16],
                        const struct cli_attach_gdb *step)
{
  const char *tmp = getenv("TMPDIR");
  if (snprintf(dir, PATH_MAX, "%s/ljleak-attach-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (!mkdtemp(dir))
    return -1;
  snprintf(path, PATH_MAX + 16, "%s/attach.py", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f) {
    if (fd >= 0)
      close(fd);
    remove_private(dir);
    return -1;
  }
  python_bytes(f, "PRIVATE", dir);
  python_bytes(f, "SO", step->collector);
  python_bytes(f, "REQUEST", step->request ? step->request : "");
  python_bytes(f, "STATE", step->state ? step->state : "");
  fprintf(f, "STEP = '%s'\nWAIT = %.3f\nPID = %ld\nUID = %lu\nSTARTED = %llu\n", step->step,
          step->wait, step->pid, step->uid, step->started);
  fputs(attach_gdb_script, f);
  if (fclose(f) != 0) {
    remove_private(dir);
    return -1;
  }
  return 0;
}

/* Once the script said "calling", how long the process may take to come back from dlopen and
 * the collector's step: a process whose dlopen never returns (another thread of it holds the
 * loader's lock, or a dlopen of its own) would hold root's attach forever. */
#define ATTACH_GDB_CALL_SECONDS 60.0

double cli_attach_seconds_since(const struct timespec *start)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Reads gdb's output until it exits; past the deadline (and the script's own, plus a grace) a
 * gdb that still waits for a system call is killed: nothing of it is in the process then. One
 * stuck in a call into the process is killed past ATTACH_GDB_CALL_SECONDS. Only the output's
 * last part is kept (the answer is its last line): gdb's lines about the process (its threads,
 * its libraries) are as many as the process makes, and a full buffer must not end the reading
 * while gdb still runs. */
static void read_answer(int fd, pid_t gdb, double wait, struct cli_attach_gdb *step)
{
  char buffer[8192];
  size_t used = 0;
  int calling = 0;
  struct timespec start, call_start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  fcntl(fd, F_SETFL, O_NONBLOCK);
  for (;;) {
    if (used == sizeof buffer - 1) {
      memmove(buffer, buffer + used / 2, used - used / 2);
      used -= used / 2;
    }
    ssize_t n = read(fd, buffer + used, sizeof buffer - 1 - used);
    if (n > 0) {
      used += (size_t)n;
      buffer[used] = '\0';
      if (!calling && strstr(buffer, "ljleak-attach: calling")) {
        calling = 1;
        clock_gettime(CLOCK_MONOTONIC, &call_start);
      }
      continue;
    }
    if (n == 0)
      break;
    if (!calling && cli_attach_seconds_since(&start) > wait + 5) {
      kill(gdb, SIGKILL);
      snprintf(step->answer, sizeof step->answer, "nosafe");
      break;
    }
    if (calling && cli_attach_seconds_since(&call_start) > ATTACH_GDB_CALL_SECONDS) {
      kill(gdb, SIGKILL);
      snprintf(step->answer, sizeof step->answer, "hung it did not come back from the "
               "collector's call within %.0f s; gdb was ended", ATTACH_GDB_CALL_SECONDS);
      break;
    }
    struct timespec pause = {0, 20000000};
    nanosleep(&pause, NULL);
  }
  buffer[used] = '\0';
  /* The last line of the script's: "ljleak-attach: KIND TEXT". */
  const char *last = NULL;
  for (char *at = strstr(buffer, "ljleak-attach: "); at; at = strstr(at + 1, "ljleak-attach: "))
    if (strncmp(at + 15, "waiting", 7) && strncmp(at + 15, "calling", 7))
      last = at + 15;
  if (last && !step->answer[0]) {
    size_t len = strcspn(last, "\n");
    snprintf(step->answer, sizeof step->answer, "%.*s", (int)(len < 1000 ? len : 1000), last);
  }
  if (!step->answer[0]) {
    /* gdb's own complaint (ptrace refused, no process): its last line. */
    char *end = buffer + used;
    while (end > buffer && (end[-1] == '\n' || end[-1] == ' '))
      *--end = '\0';
    char *line = strrchr(buffer, '\n');
    snprintf(step->answer, sizeof step->answer, "failed %.900s", line ? line + 1 : buffer);
  }
}

int cli_attach_gdb_run(struct cli_attach_gdb *step)
{
  char dir[PATH_MAX], script[PATH_MAX + 16];
  step->answer[0] = '\0';
  if (write_script(dir, script, step) != 0) {
    snprintf(step->answer, sizeof step->answer, "failed cannot write the debugger's script: %s",
             strerror(errno));
    return -1;
  }
  int out[2];
  if (pipe(out) != 0) {
    remove_private(dir);
    snprintf(step->answer, sizeof step->answer, "failed pipe: %s", strerror(errno));
    return -1;
  }
  char pid_text[32], sysroot[PATH_MAX + 32];
  snprintf(pid_text, sizeof pid_text, "%ld", step->pid);
  /* gdb, root's, opens files by names the process chose: its link map's, what /proc/PID/exe
   * reads (a "(deleted)" of its own making). A FIFO there held attach; a device there would be
   * opened. Its sysroot is the script, a file, so no such name resolves: the script gives gdb
   * private copies of the files mapped (copy_symbols). */
  snprintf(sysroot, sizeof sysroot, "set sysroot %s", script);
  pid_t child = fork();
  if (child == 0) {
    /* A process group of its own: Ctrl-C at the terminal (or timeout's signal to attach's group)
     * reaches attach, which notes it and cancels after the step, never gdb in the middle of a
     * call into the process. */
    setpgid(0, 0);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, STDIN_FILENO);
    /* gdb reads its history from .gdb_history in the working directory, which may be the
     * process's user's (a FIFO there held gdb, a link to a device was opened): none is read. */
    setenv("GDBHISTFILE", "", 1);
    /* A relative name (a link map's entry) gdb opens from its working directory, past the
     * sysroot: "../../home/u/fifo" reached any file. Where gdb can do more than the process's
     * user (root's, for another user's process), it works in an empty read-only file system
     * mounted nowhere, whose ".." is itself: no relative name resolves. For a process of its own
     * user (a mount is root's) gdb opens nothing that user could not. */
    if (geteuid() != (uid_t)step->uid) {
      int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
      int empty = fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0
                      ? -1 : fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
      if (empty < 0 || fchdir(empty) != 0) {
        dprintf(STDOUT_FILENO, "ljleak-attach: failed cannot give gdb an empty working "
                "directory (a tmpfs mounted nowhere, which needs CAP_SYS_ADMIN): %s\n",
                strerror(errno));
        _exit(127);
      }
    }
    /* No separate debug files (the directory is not one): reading libc6-dbg's stopped the
     * process 0.3 s here and more under load. No library's symbols but those the script loads
     * (libc, the loader, LuaJIT's, the collector's): an nginx worker has dozens. The script is
     * read (Python started, its functions defined) before gdb attaches, and only main() runs
     * while the process is stopped. */
    execlp(step->gdb, step->gdb, "-q", "-batch", "-nx", "-iex", "set debug-file-directory /dev/null",
           "-iex", "set debuginfod enabled off", "-iex", "set auto-solib-add off", "-iex", sysroot,
           "-iex", "set auto-load off", "-p", pid_text, "-ix", script, "-ex", "python main()",
           (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  if (child < 0) {
    close(out[0]);
    remove_private(dir);
    snprintf(step->answer, sizeof step->answer, "failed fork: %s", strerror(errno));
    return -1;
  }
  read_answer(out[0], child, step->wait, step);
  close(out[0]);
  int status;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  remove_private(dir);
  return 0;
}
