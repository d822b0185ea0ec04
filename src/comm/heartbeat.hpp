// Ranks hearing each other outside MPI: a UDP datagram from every rank to every other, a few
// times a second, from a thread of its own. A rank stuck in a collective cannot ask MPI who is
// missing; its heartbeats still tell it which ranks have gone silent (stopped, frozen, cut off)
// and what the others last said they were doing. The datagrams go only to the addresses the
// ranks publish at start (their hosts' own interfaces), and carry the job's token, so a stray
// datagram from another job is dropped.
#pragma once

#include "comm/communicator.hpp"

#include <string>
#include <vector>

namespace minigpu::comm {

class Heartbeat {
 public:
  /// Collective over `comm`: opens this rank's socket and learns every rank's addresses.
  explicit Heartbeat(const Communicator& comm);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  /// Sends `news` (at most kMaxNews bytes are sent) to every other rank. Never blocks.
  void send(const std::string& news);
  /// Reads every datagram waiting; a rank's newest news and when it came are kept.
  void receive();

  struct Peer {
    std::string host;
    double silent_s = 0;  ///< since its last datagram (or since start, if none came yet)
    std::string news;     ///< its last datagram's text, "" if none came
  };
  /// Every rank, this one included (silent 0, its own last news).
  std::vector<Peer> peers() const;
  int rank() const { return rank_; }

  static constexpr std::size_t kMaxNews = 1200;

 private:
  struct Address;
  int socket_ = -1;
  int rank_ = 0;
  std::string token_;
  std::vector<std::vector<Address>> addresses_;  ///< per rank: where its datagrams go
  std::vector<Peer> peers_;
  std::vector<double> heard_at_;  ///< seconds since start_, per rank
  double start_ = 0;
};

}  // namespace minigpu::comm
