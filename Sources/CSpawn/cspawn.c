#define _GNU_SOURCE
#include "cspawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/// Closes every descriptor from `first` up, with async-signal-safe calls only.
static void close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
#endif
    struct rlimit limit;
    int last = 65536;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < 65536)
        last = (int)limit.rlim_cur;
    for (int fd = first; fd < last; fd++) close(fd);
}

/// Writes errno to `report` and exits; the parent reads it as the failure.
static void fail(int report) {
    int code = errno;
    while (write(report, &code, sizeof code) < 0 && errno == EINTR) {}
    _exit(127);
}

/// Moves `fd` out of 0...2, so that dup2 onto 0...2 cannot clobber it.
static int lift(int fd, int report) {
    if (fd > 2) return fd;
    int lifted = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (lifted < 0) fail(report);
    return lifted;
}

int cspawn_spawn(const char *path, char *const argv[], char *const envp[],
                 int stdin_fd, int stdout_fd, int stderr_fd, int new_process_group,
                 pid_t *pid) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int code = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return code;
    }
    if (child == 0) {
        // The child: async-signal-safe calls only.
        int report = pipe_fds[1];
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(report);
        // The parent may have died before prctl took effect.
        if (getppid() != parent) _exit(127);
        if (report < 3) {
            report = fcntl(report, F_DUPFD_CLOEXEC, 3);
            if (report < 0) _exit(127);
        }
        if (new_process_group && setpgid(0, 0) != 0) fail(report);
        int in = lift(stdin_fd, report), out = lift(stdout_fd, report), err = lift(stderr_fd, report);
        if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) fail(report);
        // Close everything but 0...2 and the report pipe (which closes itself on exec).
        for (int fd = 3; fd < report; fd++) close(fd);
        close_from(report + 1);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction standard;
        standard.sa_handler = SIG_DFL;
        standard.sa_flags = 0;
        sigemptyset(&standard.sa_mask);
        for (int number = 1; number < NSIG; number++) {
            if (number == SIGKILL || number == SIGSTOP) continue;
            sigaction(number, &standard, NULL);
        }
        execve(path, argv, envp);
        fail(report);
    }
    close(pipe_fds[1]);
    int code = 0;
    ssize_t got;
    do {
        got = read(pipe_fds[0], &code, sizeof code);
    } while (got < 0 && errno == EINTR);
    close(pipe_fds[0]);
    if (got == (ssize_t)sizeof code) {
        // execve failed: the child exits at once; reap it.
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return code == 0 ? ECHILD : code;
    }
    *pid = child;
    return 0;
}
