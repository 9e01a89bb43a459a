#include "remote_wire.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace course::remote::wire {

bool send(int socket, const Message& message, int fd) {
  iovec io{const_cast<Message*>(&message), sizeof message};
  msghdr header{};
  header.msg_iov = &io;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&header);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  for (;;) {
    const ssize_t n = sendmsg(socket, &header, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(sizeof message)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool receive(int socket, Message& message, int* fd, std::string* why) {
  if (fd) *fd = -1;
  iovec io{&message, sizeof message};
  msghdr header{};
  header.msg_iov = &io;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &header, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  int received_fd = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
      std::memcpy(&received_fd, CMSG_DATA(c), sizeof(int));
  }
  auto fail = [&](const char* reason) {
    if (received_fd >= 0) close(received_fd);
    if (why) *why = reason;
    return false;
  };
  if (n == 0) return fail("the other process closed the connection");
  if (n < 0) return fail("reading from the other process failed");
  if ((header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || n != static_cast<ssize_t>(sizeof message))
    return fail("a message of the wrong size arrived");
  if (message.magic != kMagic) return fail("a message without the protocol's mark arrived");
  if (fd) {
    *fd = received_fd;
  } else if (received_fd >= 0) {
    close(received_fd);
  }
  return true;
}

std::string printable(const char* text, std::size_t capacity, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < capacity && i < limit && text[i] != '\0'; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out.push_back((c >= 32 && c < 127) || c == '\n' || c == '\t' ? static_cast<char>(c) : '?');
  }
  return out;
}

void copy_text(char* field, std::size_t capacity, const std::string& text) {
  const std::size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

}  // namespace course::remote::wire
