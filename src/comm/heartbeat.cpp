#include "comm/heartbeat.hpp"

#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "core/stopwatch.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>

namespace minigpu::comm {

struct Heartbeat::Address {
  sockaddr_in where{};
};

namespace {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// This host's IPv4 addresses, loopback last: a rank on another node is reached on one of the
// others, a rank beside this one on any of them.
std::vector<std::string> own_addresses() {
  std::vector<std::string> out, loopback;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {"127.0.0.1"};
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof(text));
    (std::string(text).rfind("127.", 0) == 0 ? loopback : out).push_back(text);
  }
  freeifaddrs(list);
  if (out.empty()) out = loopback.empty() ? std::vector<std::string>{"127.0.0.1"} : loopback;
  return out;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);) parts.push_back(part);
  return parts;
}

}  // namespace

Heartbeat::Heartbeat(const Communicator& comm) : rank_(comm.rank()) {
  socket_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  std::string mine;  // "host port addr,addr,..." ("" when this rank has no socket)
  if (socket_ >= 0) {
    sockaddr_in any{};
    any.sin_family = AF_INET;
    any.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t length = sizeof(any);
    if (::bind(socket_, reinterpret_cast<sockaddr*>(&any), sizeof(any)) == 0 &&
        ::getsockname(socket_, reinterpret_cast<sockaddr*>(&any), &length) == 0) {
      mine = processor_name() + " " + std::to_string(ntohs(any.sin_port)) + " ";
      for (const auto& a : own_addresses()) mine += a + ",";
    }
  }
  // One token per job: rank 0's, so datagrams of another job on these ports are dropped.
  std::random_device entropy;
  token_ = allgather_strings(std::to_string(entropy()) + std::to_string(entropy()), comm).at(0);
  const auto everyone = allgather_strings(mine, comm);
  addresses_.resize(everyone.size());
  peers_.resize(everyone.size());
  heard_at_.assign(everyone.size(), 0);
  start_ = now_s();
  for (std::size_t r = 0; r < everyone.size(); ++r) {
    const auto fields = split(everyone[r], ' ');
    if (fields.size() < 3) continue;
    peers_[r].host = fields[0];
    for (const auto& text : split(fields[2], ',')) {
      Address a;
      a.where.sin_family = AF_INET;
      a.where.sin_port = htons(static_cast<std::uint16_t>(std::stoi(fields[1])));
      if (!text.empty() && inet_pton(AF_INET, text.c_str(), &a.where.sin_addr) == 1)
        addresses_[r].push_back(a);
    }
  }
}

Heartbeat::~Heartbeat() {
  if (socket_ >= 0) ::close(socket_);
}

void Heartbeat::send(const std::string& news) {
  peers_[rank_].news = news;
  if (socket_ < 0) return;
  const std::string datagram =
      token_ + "\n" + std::to_string(rank_) + "\n" + news.substr(0, std::min(news.size(), kMaxNews));
  for (std::size_t r = 0; r < addresses_.size(); ++r) {
    if (static_cast<int>(r) == rank_) continue;
    for (const auto& a : addresses_[r]) {
      // Best effort: a full buffer or an unreachable network is what silence then reports.
      (void)::sendto(socket_, datagram.data(), datagram.size(), MSG_DONTWAIT,
                     reinterpret_cast<const sockaddr*>(&a.where), sizeof(a.where));
    }
  }
}

void Heartbeat::receive() {
  if (socket_ < 0) return;
  char buffer[2048];
  for (;;) {
    const ssize_t got = ::recv(socket_, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (got <= 0) return;
    const std::string text(buffer, static_cast<std::size_t>(got));
    const auto first = text.find('\n'), second = text.find('\n', first + 1);
    if (first == std::string::npos || second == std::string::npos || text.compare(0, first, token_) != 0)
      continue;
    int from = -1;
    try {
      from = std::stoi(text.substr(first + 1, second - first - 1));
    } catch (const std::exception&) {
      continue;
    }
    if (from < 0 || from >= static_cast<int>(peers_.size()) || from == rank_) continue;
    peers_[from].news = text.substr(second + 1);
    heard_at_[from] = now_s() - start_;
  }
}

std::vector<Heartbeat::Peer> Heartbeat::peers() const {
  std::vector<Peer> out = peers_;
  const double now = now_s() - start_;
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r].silent_s = static_cast<int>(r) == rank_ ? 0 : now - heard_at_[r];
  return out;
}

}  // namespace minigpu::comm
