#ifndef CSPAWN_H
#define CSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated) in a child process that is
/// killed (SIGKILL) when the calling *thread* exits: call it from a thread that lives until
/// the child has exited (and reaps it).
///
/// The child gets `stdin_fd`, `stdout_fd` and `stderr_fd` as its descriptors 0, 1 and 2 and no
/// other descriptor, default signal dispositions and an empty signal mask; with
/// `new_process_group` it leads a process group of its own (so that the terminal's Ctrl-C does
/// not reach it).
///
/// Returns 0 and sets `*pid` when the program runs (`execve` succeeded), else an `errno` value:
/// `fork`'s, or the child's `execve`'s (the child has then exited and been reaped).
int cspawn_spawn(const char *path, char *const argv[], char *const envp[],
                 int stdin_fd, int stdout_fd, int stderr_fd, int new_process_group,
                 pid_t *pid);

#endif
