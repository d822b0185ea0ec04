// Tensor storage, placement and the moves between devices (explicit deep_copy only).
#include "core/tensor.hpp"

#include "core/host_pages.hpp"

#include <stdexcept>

namespace minigpu {

[[noreturn]] void throw_device_mismatch(Device a, Device b) {
  std::string message = "expected all tensors to be on the same device, but found at least two devices, " +
                        to_string(a) + " and " + to_string(b);
  if (gpus_are_emulated()) message += " (GPUs are emulated)";
  throw DeviceMismatchError(message);
}

[[noreturn]] void throw_no_storage(const std::string& label, Device device, const char* space) {
  throw std::logic_error("tensor view: " + label + " on " + describe(device) + " has no storage in " + space);
}

template <class T>
Tensor<T>::Tensor(Shape shape, Device device, const std::string& label)
    : device_(device), shape_(std::move(shape)), defined_(true) {
  if (shape_.size() > 2) throw ShapeError(label + ": tensors have rank 0, 1 or 2");
  for (auto extent : shape_) {
    if (extent <= 0) throw ShapeError(label + ": shape " + to_string(shape_) + " has a non-positive extent");
  }
  require_available(device_);
  const auto n = static_cast<std::size_t>(minigpu::numel(shape_));
  if (uses_host_memory(device_)) {
    host_ = large_array_view<T, HostMemSpace>(label, static_cast<std::int64_t>(n));
  } else {
    gpu_ = GpuView(label, n);
  }
}

template <class T>
std::string Tensor<T>::label() const {
  return uses_host_memory(device_) ? host_.label() : gpu_.label();
}

template <class T>
bool Tensor<T>::shares_storage_with(const Tensor& other) const {
  if (!defined_ || !other.defined_ || device_ != other.device_) return false;
  return uses_host_memory(device_) ? host_.data() == other.host_.data() : gpu_.data() == other.gpu_.data();
}

template <class T>
Tensor<T> Tensor<T>::copy_to(Device device) const {
  Tensor<T> out(shape_, device, label());
  auto copy = [](const auto& dst, const auto& src) { Kokkos::deep_copy(dst, src); };
  if (uses_host_memory(device)) {
    with_views(
        device_, [&](const auto& src) { copy(out.host_, src); }, *this);
  } else {
    with_views(
        device_, [&](const auto& src) { copy(out.gpu_, src); }, *this);
  }
  return out;
}

template <class T>
Tensor<T> Tensor<T>::to(Device device) const {
  return device == device_ ? *this : copy_to(device);
}

template <class T>
Tensor<T> Tensor<T>::reshape(const Shape& shape) const {
  if (minigpu::numel(shape) != numel()) {
    throw ShapeError("reshape: cannot view " + to_string(shape_) + " as " + to_string(shape));
  }
  Tensor<T> out = *this;
  out.shape_ = shape;
  return out;
}

template <class T>
std::vector<T> Tensor<T>::to_vector() const {
  std::vector<T> values(static_cast<std::size_t>(numel()));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> dst(values.data(), values.size());
  with_views(
      device_, [&](const auto& src) { Kokkos::deep_copy(dst, src); }, *this);
  return values;
}

template <class T>
T Tensor<T>::item() const {
  if (numel() != 1)
    throw ShapeError("item: tensor of shape " + to_string(shape_) + " has " + std::to_string(numel()) +
                     " elements, not 1");
  return to_vector()[0];
}

template class Tensor<float>;
template class Tensor<double>;

}  // namespace minigpu
