// What a lab file's code can try once it runs (grader/tests_py/test_sandbox.py runs it with and without the sandbox).
// Usage: attack MODE [ARG]; prints one line "MODE: result" and exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

static int write_file(const char* path) {
  std::FILE* f = std::fopen(path, "w");
  if (!f) return std::printf("write: %s\n", std::strerror(errno)), 0;
  std::fputs("pwned\n", f);
  std::fclose(f);
  return std::printf("write: done\n"), 0;
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::string mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "";
  if (mode == "write") return write_file(arg);
  if (mode == "system") {  // through a function pointer, as the issue measured
    auto run = system;
    std::string cmd = std::string("/bin/sh -c 'touch ") + arg + "'";
    return std::printf("system: %d\n", run(cmd.c_str())), 0;
  }
  if (mode == "setsid") {  // a child in its own session outlives its parent, then writes
    int ready[2];
    if (pipe(ready) != 0) return std::printf("setsid: no pipe\n"), 0;
    if (fork() == 0) {
      setsid();
      char c = 1;
      if (write(ready[1], &c, 1) != 1) _exit(1);  // in its own session before the parent exits
      sleep(1);
      std::printf("late child still alive\n");
      write_file(arg);
      _exit(0);
    }
    char c;
    if (read(ready[0], &c, 1) != 1) return std::printf("setsid: child lost\n"), 0;
    return std::printf("setsid: parent exits\n"), 0;
  }
  if (mode == "connect") {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<unsigned short>(std::atoi(arg)));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    return std::printf("connect: %s\n", rc == 0 ? "connected" : std::strerror(errno)), 0;
  }
  if (mode == "env") {
    for (char** e = environ; *e; ++e) std::printf("env: %s\n", *e);
    return 0;
  }
  if (mode == "where") {  // what tells one run from another: its folder, and what its sandbox was started with
    char cwd[4096] = {};
    std::printf("where: cwd=%s home=%s tmpdir=%s\n", getcwd(cwd, sizeof cwd) ? cwd : "?", std::getenv("HOME"),
                std::getenv("TMPDIR"));
    if (std::FILE* f = std::fopen("/proc/1/cmdline", "r")) {
      std::string line;
      for (int ch; (ch = std::fgetc(f)) != EOF;) line += ch ? static_cast<char>(ch) : ' ';
      std::fclose(f);
      std::printf("where: pid1=%s\n", line.c_str());
    }
    return 0;
  }
  if (mode == "fork") {  // a fork bomb, stopped at 400
    std::vector<pid_t> kids;
    for (int i = 0; i < 400; ++i) {
      pid_t p = fork();
      if (p == 0) {
        sleep(3);
        _exit(0);
      }
      if (p < 0) break;
      kids.push_back(p);
    }
    return std::printf("fork: %zu\n", kids.size()), 0;
  }
  if (mode == "memory") {  // 2 GiB, touched
    char* p = static_cast<char*>(std::malloc(std::size_t(2) << 30));
    if (p) std::memset(p, 1, std::size_t(2) << 30);
    return std::printf("memory: %s\n", p ? "allocated" : "refused"), 0;
  }
  return std::printf("unknown mode\n"), 2;
}
