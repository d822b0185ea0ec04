// `kernel: auto`: the chooser against injected timings (the faster one wins, a named kernel is
// never measured, the cache round-trips), and an experiment's rows saying which kernel ran.
#include "config/config_node.hpp"
#include "distributed/distributed_matmul.hpp"
#include "engine/registry.hpp"
#include "gemm/choice.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace minigpu {
namespace {

// Native twice as fast up to n = 256, vendor 1.5x as fast above; counts calls per shape.
struct FakeTimings {
  std::map<GemmShape, int> calls;
  GemmChooser::Measure measure() {
    return [this](bool, DType, GemmShape s) {
      ++calls[s];
      return s.n <= 256 ? GemmPairTiming{2e-3, 1e-3} : GemmPairTiming{1e-3, 1.5e-3};
    };
  }
};

GemmShape cube(std::int64_t n) { return {n, n, n}; }

const GemmChooser::Share kAlone = [](const std::vector<char>& mine) { return mine; };

// The measurement itself on GPU memory: a process's GPU is gpu(0) whatever its device number
// (it timed on gpu(active_gpu_id()), which threw on every rank bound to a device other than 0,
// and on emulated GPUs, which have no device number).
class GemmAutoOnEmulatedGpus : public testing::EmulatedGpus {};
TEST_F(GemmAutoOnEmulatedGpus, TimesOnTheProcesssOwnGpu) {
  const GemmPairTiming t = time_gemm_pair(true, DType::f32, cube(16));
  EXPECT_GT(t.vendor_s, 0);
  EXPECT_GT(t.native_s, 0);
  EXPECT_LT(t.vendor_s, 1) << "seconds per call of a 16^3 product";
}

TEST(GemmAuto, SizeClassIsThePowerOfTwoNearestTheCubeRoot) {
  EXPECT_EQ(GemmChooser::size_class(100, 100, 100), 128);
  EXPECT_EQ(GemmChooser::size_class(64, 64, 64), 64);
  EXPECT_EQ(GemmChooser::size_class(90, 90, 90), 64);  // 2^6.49
  EXPECT_EQ(GemmChooser::size_class(512, 2048, 2048), 1024);
  EXPECT_EQ(GemmChooser::size_class(1, 1, 1), 8);  // the smallest class
}

TEST(GemmAuto, SmallProductsAreTimedAtTheirOwnShapeLargeOnesAtTheirClass) {
  EXPECT_EQ(GemmChooser::timed_shape(100, 100, 100), cube(100)) << "OpenBLAS's cliff at 100^3";
  EXPECT_EQ(GemmChooser::timed_shape(128, 8, 4096), (GemmShape{128, 8, 4096})) << "256^3 of volume";
  EXPECT_EQ(GemmChooser::timed_shape(256, 256, 257), cube(256));
  EXPECT_EQ(GemmChooser::timed_shape(4096, 4096, 4096), cube(GemmChooser::kMaxTimedN));
}

TEST(GemmAuto, PicksTheKernelTheMeasurementSaysIsFaster) {
  FakeTimings fake;
  GemmChooser chooser(fake.measure(), nullptr, true);
  const GemmPick small = chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 100, 100, 100, kAlone);
  EXPECT_EQ(small.kernel, GemmKernel::native);
  EXPECT_EQ(small.why.rfind("auto→native (native 2x vendor at 100x100x100, float32, measured ", 0), 0)
      << small.why;
  const GemmPick large = chooser.pick(GemmChoice::automatic, cpu(), DType::f64, 1000, 1000, 1000, kAlone);
  EXPECT_EQ(large.kernel, GemmKernel::vendor);
  EXPECT_NE(large.why.find("vendor 1.5x native at n~1024, float64"), std::string::npos) << large.why;
  // Beyond the largest timed size a class is timed at that size; each class once per process.
  chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 4096, 4096, 4096, kAlone);
  chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 100, 100, 100, kAlone);
  EXPECT_EQ(fake.calls,
            (std::map<GemmShape, int>{{cube(100), 1}, {cube(1024), 1}, {cube(GemmChooser::kMaxTimedN), 1}}));
  EXPECT_EQ(chooser.record().entries.size(), 3u);
}

// Overlapped SUMMA keeps the native kernel on a near tie: it lets MPI progress inside the product.
TEST(GemmAuto, APreferenceKeepsNativeOnlyWithinItsMargin) {
  // Vendor 1 ms; native 1.03 ms at n~64, 1.10 ms at n~1024.
  GemmChooser chooser(
      [](bool, DType, GemmShape s) {
        return GemmPairTiming{1e-3, s.n <= 64 ? 1.03e-3 : 1.1e-3};
      },
      nullptr, true);
  const NativePreference prefer{0.05, "because"};
  const GemmPick near =
      chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 64, 64, 64, kAlone, "", prefer);
  EXPECT_EQ(near.kernel, GemmKernel::native);
  EXPECT_EQ(near.why.rfind("auto→native (vendor 1.03x native at 64x64x64, float32, measured ", 0), 0)
      << near.why;
  EXPECT_NE(near.why.find("; native within 5 %, because)"), std::string::npos) << near.why;
  const GemmPick far =
      chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 1024, 1024, 1024, kAlone, "", prefer);
  EXPECT_EQ(far.kernel, GemmKernel::vendor) << far.why;
  EXPECT_EQ(far.why.find("within"), std::string::npos) << far.why;
  EXPECT_EQ(chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 64, 64, 64, kAlone).kernel,
            GemmKernel::vendor);
  // Only for an overlapped SUMMA on several ranks, on the host, and only where the native kernel
  // gets MPI between its blocks.
  const ScalingCase overlapped{Decomposition::summa, 1, 64, {}, SummaOptions{0, true, {}}};
  ScalingCase blocking = overlapped;
  blocking.summa.overlap = false;
  const bool hooked = summa_panel_whole(false, GemmKernel::native);
  EXPECT_EQ(overlapped_summa_preference(cpu(), {blocking, overlapped}, {1, 2}).within, hooked ? 0.05 : 0);
  EXPECT_EQ(overlapped_summa_preference(cpu(), {blocking}, {1, 2}).within, 0);
  EXPECT_EQ(overlapped_summa_preference(cpu(), {overlapped}, {1}).within, 0);
  if (num_gpus() > 0) {
    EXPECT_EQ(overlapped_summa_preference(gpu(0), {overlapped}, {2}).within, 0);
  }
}

TEST(GemmAuto, ANamedKernelIsTakenWithoutMeasuring) {
  FakeTimings fake;
  GemmChooser chooser(fake.measure(), nullptr, true);
  const GemmPick vendor = chooser.pick(GemmChoice::vendor, cpu(), DType::f32, 100, 100, 100, kAlone);
  const GemmPick native = chooser.pick(GemmChoice::native, cpu(), DType::f32, 2048, 2048, 2048, kAlone);
  EXPECT_EQ(vendor.kernel, GemmKernel::vendor);  // where auto would take native
  EXPECT_EQ(native.kernel, GemmKernel::native);  // where auto would take vendor
  EXPECT_EQ(vendor.why, "vendor: named in the input");
  EXPECT_TRUE(fake.calls.empty());
}

TEST(GemmAuto, AProductThatCannotTakeTheVendorGemmIsNativeWithoutMeasuring) {
  FakeTimings fake;
  GemmChooser chooser(fake.measure(), nullptr, true);
  // 1000^3 float64: where the measurement would take vendor.
  const GemmPick pick = chooser.pick(GemmChoice::automatic, cpu(), DType::f64, 1000, 1000, 1000, kAlone,
                                     "16-bit data trains with the native kernels");
  EXPECT_EQ(pick.kernel, GemmKernel::native);
  EXPECT_EQ(pick.why, "auto→native (16-bit data trains with the native kernels)");
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_FALSE(chooser.used()) << "nothing was measured or read for it";
}

TEST(GemmAuto, OtherRanksTakeRankZerosFigures) {
  GemmChooser chooser(
      [](bool, DType, GemmShape) -> GemmPairTiming {
        ADD_FAILURE() << "only rank 0 measures";
        return {};
      },
      nullptr, false);
  // What rank 0 sends, in the order it sends it: the table it loaded (its source, then its
  // entries: none) in one exchange, then the one class it measured. This rank writes nothing.
  std::vector<std::vector<char>> from_rank0(2);
  {
    wire::Writer table, measured;
    table.put(std::string("rank 0's"));
    table.put(std::uint64_t{0});
    measured.put(3.0);
    measured.put(1.0);
    measured.put(std::string("then"));
    measured.put(std::string("cpu0"));
    from_rank0 = {table.bytes(), measured.bytes()};
  }
  std::size_t shared = 0;
  const GemmPick pick =
      chooser.pick(GemmChoice::automatic, cpu(), DType::f32, 64, 64, 64, [&](const std::vector<char>& mine) {
        EXPECT_TRUE(mine.empty()) << "a rank other than 0 sends nothing";
        return from_rank0.at(shared++);
      });
  EXPECT_EQ(shared, 2u);
  EXPECT_EQ(pick.kernel, GemmKernel::native);
  EXPECT_NE(pick.why.find("native 3x vendor at 64x64x64, float32, measured then on cpu0"), std::string::npos)
      << pick.why;
}

TEST(GemmAuto, TheCacheRoundTrips) {
  char dir_template[] = "/tmp/minigpu_gemm_auto_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const char* before = std::getenv("MINIGPU_CEILINGS_DIR");
  const std::string saved = before ? before : "";
  setenv("MINIGPU_CEILINGS_DIR", dir_template, 1);
  const nlohmann::json key = {{"hostname", "test"}, {"build", "gemm_auto"}};
  FakeTimings fake;
  GemmChooser first(fake.measure(), key, true);
  const GemmPick a = first.pick(GemmChoice::automatic, cpu(), DType::f32, 100, 100, 100, kAlone);
  const GemmPick b = first.pick(GemmChoice::automatic, cpu(), DType::f64, 1024, 1024, 1024, kAlone);
  GemmChooser second(
      [](bool, DType, GemmShape) -> GemmPairTiming {
        ADD_FAILURE() << "a cached class is not measured again";
        return {};
      },
      key, true);
  const GemmPick a2 = second.pick(GemmChoice::automatic, cpu(), DType::f32, 100, 100, 100, kAlone);
  const GemmPick b2 = second.pick(GemmChoice::automatic, cpu(), DType::f64, 1024, 1024, 1024, kAlone);
  EXPECT_EQ(a2.kernel, a.kernel);
  EXPECT_EQ(a2.why, a.why);  // the same figures, the same time of measurement
  EXPECT_EQ(b2.kernel, b.kernel);
  EXPECT_EQ(b2.why, b.why);
  const io::GemmChoiceRecord read = second.record(), measured = first.record();
  ASSERT_EQ(read.entries.size(), measured.entries.size());
  for (std::size_t i = 0; i < read.entries.size(); ++i) {
    EXPECT_EQ(read.entries[i].key, measured.entries[i].key);
    EXPECT_EQ(read.entries[i].vendor_s, measured.entries[i].vendor_s);
    EXPECT_EQ(read.entries[i].native_s, measured.entries[i].native_s);
    EXPECT_EQ(read.entries[i].measured, measured.entries[i].measured);
  }
  EXPECT_EQ(read.source.rfind("cached in ", 0), 0u) << read.source;
  // Another build's key does not take these figures.
  FakeTimings other;
  GemmChooser third(other.measure(), nlohmann::json{{"hostname", "test"}, {"build", "another"}}, true);
  third.pick(GemmChoice::automatic, cpu(), DType::f32, 100, 100, 100, kAlone);
  EXPECT_EQ(other.calls[cube(100)], 1);
  if (before) {
    setenv("MINIGPU_CEILINGS_DIR", saved.c_str(), 1);
  } else {
    unsetenv("MINIGPU_CEILINGS_DIR");
  }
  std::filesystem::remove_all(dir_template);
}

// The rows say which kernel ran: the named one, or auto's pick with its reason.
TEST(GemmAuto, RowsSayWhichKernelRanAndWhy) {
  for (const std::string kernel : {"auto", "vendor", "native"}) {
    auto experiment = ExperimentRegistry::find("logging")->make();
    YAML::Node yaml = YAML::Load("{n: 100, steps: 3, device: cpu, kernel: " + kernel + "}");
    ConfigNode node(yaml, "test", "logging");
    experiment->configure(node, RunContext::on(comm::Communicator::world()));
    for (const CaseSpec& spec : experiment->cases()) {
      const std::string ran = spec.param("kernel"), why = spec.param("kernel_choice");
      if (kernel == "auto") {
        EXPECT_EQ(why.rfind("auto→" + ran + " (" + ran + " ", 0), 0u) << why;
      } else {
        EXPECT_EQ(ran, kernel);
        EXPECT_EQ(why, kernel + ": named in the input");
      }
      EXPECT_NE(spec.label.find(ran), std::string::npos) << spec.label;
    }
  }
}

}  // namespace
}  // namespace minigpu
