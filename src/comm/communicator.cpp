// Communicator lifetimes: split handles are freed by the last copy, while MPI still runs.
#include "comm/communicator.hpp"

#include <stdexcept>

namespace minigpu::comm {

Communicator Communicator::world() { return Communicator(std::make_shared<MPI_Comm>(MPI_COMM_WORLD)); }

Communicator Communicator::adopt(MPI_Comm owned) {
  if (owned == MPI_COMM_NULL) return Communicator(std::make_shared<MPI_Comm>(MPI_COMM_NULL));
  return Communicator(std::shared_ptr<MPI_Comm>(new MPI_Comm(owned), [](MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(c);
    delete c;
  }));
}

Communicator Communicator::split(int colour, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Comm_split(raw(), colour == kNoColour ? MPI_UNDEFINED : colour, key, &out);
  return adopt(out);
}

Communicator Communicator::split_node() const {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Comm_split_type(raw(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &out);
  return adopt(out);
}

int Communicator::rank() const {
  if (is_null()) throw std::logic_error("rank() of a null communicator");
  int r = 0;
  MPI_Comm_rank(raw(), &r);
  return r;
}

int Communicator::size() const {
  if (is_null()) throw std::logic_error("size() of a null communicator");
  int s = 0;
  MPI_Comm_size(raw(), &s);
  return s;
}

}  // namespace minigpu::comm
