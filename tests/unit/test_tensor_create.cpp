// Tensor creation on every device (cpu, emulated GPU, the real GPU where there is one),
// checked against values computed here on the host.
#include "core/tensor_print.hpp"
#include "ops/tensor_factory.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace minigpu {
namespace {

template <class P>
class TensorCreate : public testing::OnEveryDevice<P> {};
TYPED_TEST_SUITE(TensorCreate, testing::EveryDeviceAndDtype, testing::OnNames);

TYPED_TEST(TensorCreate, KnowsDeviceShapeAndDtype) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const auto x = zeros<T>({2, 3}, d);
  EXPECT_EQ(x.device(), d);
  EXPECT_EQ(x.shape(), (Shape{2, 3}));
  EXPECT_EQ(x.rank(), 2);
  EXPECT_EQ(x.numel(), 6);
  EXPECT_EQ(x.dtype(), (std::is_same_v<T, float> ? DType::f32 : DType::f64));
  EXPECT_EQ(ones<T>({4}, cpu()).device(), cpu());
}

TYPED_TEST(TensorCreate, FillsValues) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  EXPECT_EQ(zeros<T>({2, 2}, d).to_vector(), std::vector<T>(4, T(0)));
  EXPECT_EQ(ones<T>({3}, d).to_vector(), std::vector<T>(3, T(1)));
  EXPECT_EQ(full<T>({2, 1}, T(2.5), cpu()).to_vector(), std::vector<T>(2, T(2.5)));
  EXPECT_EQ(arange<T>(0, 5, 1, d).to_vector(), (std::vector<T>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange<T>(1, 2, T(0.25), cpu()).to_vector(), (std::vector<T>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(arange<T>(3, 0, -1, cpu()).to_vector(), (std::vector<T>{3, 2, 1}));
  EXPECT_EQ(linspace<T>(0, 1, 5, d).to_vector(), (std::vector<T>{0, 0.25, 0.5, 0.75, 1}));
  const std::vector<T> values{1, 2, 3, 4, 5, 6};
  const auto x = from_vector<T>(values, {2, 3}, d);
  EXPECT_EQ(x.to_vector(), values);
  EXPECT_EQ(x.shape(), (Shape{2, 3}));
}

TYPED_TEST(TensorCreate, RandIsSeededUniformAndDeviceIndependent) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const auto a = rand<T>({50, 40}, cpu(), 42).to_vector();
  const auto b = rand<T>({50, 40}, d, 42).to_vector();
  const auto c = rand<T>({50, 40}, cpu(), 43).to_vector();
  EXPECT_EQ(a, b) << "same seed must give the same values on every device";
  EXPECT_NE(a, c) << "another seed must give other values";
  double mean = 0;
  for (T v : a) {
    ASSERT_GE(v, T(0));
    ASSERT_LT(v, T(1));
    mean += v;
  }
  mean /= static_cast<double>(a.size());
  EXPECT_NEAR(mean, 0.5, 0.03) << "2000 uniform draws have a mean within ~5 sigma of 0.5";
  for (T v : rand<T>({1000}, cpu(), 7, T(-2), T(3)).to_vector()) {
    ASSERT_GE(v, T(-2));
    ASSERT_LT(v, T(3));
  }
}

TYPED_TEST(TensorCreate, BadShapesAreClearErrors) {
  using T = typename TypeParam::value_type;
  EXPECT_THROW(zeros<T>({}, cpu()), ShapeError);
  EXPECT_THROW(zeros<T>({-1}, cpu()), ShapeError);
  EXPECT_THROW(ones<T>({2, 0}, cpu()), ShapeError);
  EXPECT_THROW(zeros<T>({2, 2, 2}, cpu()), ShapeError);
  EXPECT_THROW(from_vector<T>({1, 2, 3}, {2, 2}, cpu()), ShapeError);
  EXPECT_THROW(linspace<T>(0, 1, 0, cpu()), ShapeError);
  EXPECT_THROW(arange<T>(0, 5, 0, cpu()), std::invalid_argument);
  EXPECT_THROW(arange<T>(5, 0, 1, cpu()), ShapeError);
  EXPECT_THROW(zeros<T>({2}, Device(DeviceKind::gpu, 5)), DeviceNotFoundError);
  try {
    zeros<T>({3, -4}, cpu());
    FAIL() << "a negative extent must throw";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("(3, -4)"), std::string::npos) << e.what();
  }
}

TYPED_TEST(TensorCreate, PrintsValuesThenDevice) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  std::ostringstream os;
  os << from_vector<T>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  EXPECT_EQ(os.str(), "tensor([[1, 2, 3],\n        [4, 5, 6]], device=" + describe(d) + ")");
  std::ostringstream host;
  host << from_vector<T>({0.5, -1}, {2}, cpu());
  EXPECT_EQ(host.str(), "tensor([0.5, -1], device=cpu)");
  std::ostringstream big;
  big << arange<T>(0, 2000, 1, cpu());
  EXPECT_NE(big.str().find("[0, 1, 2, ..., 1997, 1998, 1999]"), std::string::npos) << big.str();
}

// The kernel's flags for the mapping that holds `address` (/proc/self/smaps' VmFlags line): "hg"
// is MADV_HUGEPAGE's advice. Empty where there is no such file or mapping.
std::string mapping_flags(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    const auto dash = line.find('-');
    const auto space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space &&
        line.find_first_not_of("0123456789abcdef") == dash) {
      const std::uintptr_t begin = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return {};
}

// Host tensors of 4 MiB and more are zeroed and advised onto huge pages before first touch
// (core/host_pages.hpp): the advice is the kernel's record, whether or not it found free huge
// pages. Skipped where the kernel takes no advice (THP "never", no smaps).
TEST(TensorStorage, LargeHostTensorsAreAdvisedOntoHugePagesZeroed) {
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(thp, mode);
  if (mode.empty() || mode.find("[never]") != std::string::npos) GTEST_SKIP() << "THP: '" << mode << "'";
  const std::int64_t n = (std::int64_t(8) << 20) / sizeof(double) + 3;  // 8 MiB and a ragged end
  const Tensor<double> big({n}, cpu(), "test::big");
  const auto& v = big.view<HostMemSpace>();
  ASSERT_EQ(static_cast<std::int64_t>(v.extent(0)), n);
  EXPECT_EQ(v.label(), "test::big");
  for (std::int64_t i = 0; i < n; i += 4093) ASSERT_EQ(v(i), 0.0) << "element " << i;
  EXPECT_EQ(v(n - 1), 0.0);
  // Its middle is a whole 2 MiB page inside it, whichever mapping malloc put it in.
  const std::string flags = mapping_flags(v.data() + n / 2);
  if (flags.empty()) GTEST_SKIP() << "no /proc/self/smaps entry for the tensor";
  EXPECT_NE((" " + flags + " ").find(" hg "), std::string::npos) << flags;
}

}  // namespace
}  // namespace minigpu
