// Stands for the grader's sandbox in remote_test.cpp: runs its arguments as a child that dies with it, and exits as
// bubblewrap does (the child's exit status, or 128 + N when signal N killed it), so that the judge's account of a
// worker that died is tested through a wrapper, as the grader runs it.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 127;
  const pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
