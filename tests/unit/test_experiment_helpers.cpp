// The helpers experiments build their case lists and findings with (engine/case_grid.hpp,
// engine/findings.hpp), the shared key readers of config/common_keys and engine/comm_keys:
// every expected value is worked out by hand from the inputs written here.
#include "config/common_keys.hpp"
#include "core/errors.hpp"
#include "engine/case_grid.hpp"
#include "engine/comm_keys.hpp"
#include "engine/findings.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {
namespace {

CaseResult row(const std::string& label, DType dtype, double gbps, double median = 1) {
  CaseResult r;
  r.spec.label = label;
  r.spec.dtype = dtype;
  r.gbps = gbps;
  r.gflops = 100 - gbps;
  r.seconds.median = median;
  return r;
}

std::vector<std::string> labels(const ResultRows& rows) {
  std::vector<std::string> out;
  for (const CaseResult* r : rows) out.push_back(r->spec.label);
  return out;
}

TEST(CaseGrid, CombinationsComeInNestedLoopOrder) {
  std::vector<std::string> seen;
  for_each_combination([&](int i, const std::string& s) { seen.push_back(std::to_string(i) + s); },
                       std::vector<int>{1, 2}, std::vector<std::string>{"a", "b", "c"});
  EXPECT_EQ(seen, (std::vector<std::string>{"1a", "1b", "1c", "2a", "2b", "2c"}));
  int calls = 0;
  for_each_combination([&](int, bool, char) { ++calls; }, std::vector<int>{1, 2, 3}, std::vector<bool>{},
                       std::vector<char>{'x'});
  EXPECT_EQ(calls, 0) << "an empty axis has no combinations";
  for_each_combination([&](bool, char) { ++calls; }, std::vector<bool>{true, false},
                       std::vector<char>{'x', 'y'});
  EXPECT_EQ(calls, 4);
}

TEST(CaseGrid, SpecCarriesTheFieldsGiven) {
  const CaseSpec s =
      case_spec("tiled n=8", {{"n", "8"}, {"variant", "tiled"}}, cpu(), DType::f64, "gemm", "sizes");
  EXPECT_EQ(s.label, "tiled n=8");
  EXPECT_EQ(s.param("variant"), "tiled");
  EXPECT_EQ(s.param("n"), "8");
  EXPECT_EQ(s.device, cpu());
  EXPECT_EQ(s.dtype, DType::f64);
  EXPECT_EQ(s.ceiling, "gemm");
  EXPECT_EQ(s.size_key, "sizes");
  EXPECT_EQ(s.device_bytes, 0u) << "left for the case to set";
  EXPECT_EQ(s.ceiling_scale, 1);
  EXPECT_TRUE(s.fence_after_run);
}

TEST(CaseGrid, ParamsAreTextAsGivenAndIntegersInDecimal) {
  const CaseSpec s = case_spec("x",
                               {{"n", std::int64_t{4096}},
                                {"k", 2},
                                {"neg", -3},
                                {"mode", "a"},
                                {"name", std::string("b")},
                                {"big", std::uint64_t{1} << 40}},
                               cpu(), DType::f32, "", "");
  EXPECT_EQ(
      s.params,
      (std::vector<std::pair<std::string, std::string>>{
          {"n", "4096"}, {"k", "2"}, {"neg", "-3"}, {"mode", "a"}, {"name", "b"}, {"big", "1099511627776"}}))
      << "in the order given";
}

TEST(CaseGrid, GemmCasesSayTheirKernelLastAndAreBoundByTheGemmCeiling) {
  const GemmPick pick{GemmKernel::native, "auto: native 1.2x vendor"};
  const CaseSpec s =
      gemm_case_spec("sync native", {{"n", 64}, {"mode", "sync"}}, pick, cpu(), DType::f64, "n");
  EXPECT_EQ(s.label, "sync native");
  EXPECT_EQ(s.params, (std::vector<std::pair<std::string, std::string>>{
                          {"n", "64"},
                          {"mode", "sync"},
                          {"kernel", "native"},
                          {"kernel_choice", "auto: native 1.2x vendor"}}));
  EXPECT_EQ(s.ceiling, "host_dgemm") << "a cpu case in float64";
  EXPECT_EQ(s.device, cpu());
  EXPECT_EQ(s.dtype, DType::f64);
  EXPECT_EQ(s.size_key, "n");
  EXPECT_EQ(gemm_case_spec("x", {}, pick, cpu(), DType::f32, "n").ceiling, "host_sgemm");
  EXPECT_EQ(s.peak, "host_fma_f64") << "and by the FMA units' peak";
  EXPECT_EQ(gemm_case_spec("x", {}, pick, cpu(), DType::f32, "n").peak, "host_fma_f32");
}

TEST(CaseGrid, TheGpuVendorsDoublePrecisionGemmIsNotBoundByTheCudaCoresPeak) {
  // The host's BLAS runs on the FMA units it measures; cuBLAS's DGEMM on the FP64 tensor cores.
  EXPECT_EQ(gemm_peak(cpu(), DType::f64, GemmKernel::vendor), "host_fma_f64");
  if (num_gpus() == 0 || gpus_are_emulated()) GTEST_SKIP() << "no real GPU: its memory is the host's";
  EXPECT_EQ(gemm_peak(gpu(0), DType::f64, GemmKernel::vendor), "");
  EXPECT_EQ(gemm_peak(gpu(0), DType::f64, GemmKernel::native), "gpu_fma_f64");
  EXPECT_EQ(gemm_peak(gpu(0), DType::f32, GemmKernel::vendor), "gpu_fma_f32") << "SGEMM runs on CUDA cores";
}

TEST(CaseGrid, NamesNameTheirValuesForLabelsAndForReading) {
  const Names<int> names = {{"one", 1}, {"two", 2}, {"four", 4}};
  EXPECT_EQ(name_of(names, 2), "two");
  EXPECT_EQ(name_of(names, 4), "four");
  EXPECT_EQ(name_of(names, 3), "") << "a value the table does not name";
  ConfigNode given(YAML::Load("{counts: [four, one]}"), "in.yaml", "x");
  EXPECT_EQ(given.get_named_list("counts", names, {"two"}), (std::vector<int>{4, 1}));
}

TEST(Findings, GroupsKeepTheOrderOfTheirFirstRow) {
  const std::vector<CaseResult> results = {row("b1", DType::f32, 1), row("a1", DType::f32, 2),
                                           row("b2", DType::f32, 3)};
  const auto groups = group_rows(results, [](const CaseResult& r) { return r.spec.label.substr(0, 1); });
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].first, "b");
  EXPECT_EQ(labels(groups[0].second), (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(groups[1].first, "a");
  EXPECT_EQ(labels(groups[1].second), (std::vector<std::string>{"a1"}));
}

TEST(Findings, RowsByModeFileEachRowAndTheLastOfARepeatWins) {
  const std::vector<CaseResult> results = {row("f64 slow", DType::f64, 1), row("f32 slow", DType::f32, 2),
                                           row("f32 fast", DType::f32, 3),
                                           row("f32 slow again", DType::f32, 4)};
  const auto by =
      rows_by_mode(results, row_dtype, [](const CaseResult& r) { return r.spec.label.substr(4, 4); });
  ASSERT_EQ(by.size(), 2u);
  EXPECT_EQ(by.begin()->first, DType::f32) << "groups in key order, not row order";
  const auto& f32 = by.at(DType::f32);
  EXPECT_EQ(row_of(f32, std::string("slow"))->spec.label, "f32 slow again");
  EXPECT_EQ(row_of(f32, std::string("fast"))->gbps, 3);
  EXPECT_EQ(row_of(by.at(DType::f64), std::string("fast")), nullptr);
  // The same from a group of rows: only those rows are filed.
  const ResultRows some = {&results[1], &results[3]};
  const auto by_some =
      rows_by_mode(some, row_dtype, [](const CaseResult& r) { return r.spec.label.substr(4, 4); });
  ASSERT_EQ(by_some.size(), 1u);
  EXPECT_EQ(row_of(by_some.at(DType::f32), std::string("slow"))->spec.label, "f32 slow again");
  EXPECT_EQ(row_of(by_some.at(DType::f32), std::string("fast")), nullptr);
}

TEST(Checks, ExactMatchSaysHowManyEntriesDiffer) {
  const Check ok = exact_match_check(0, "host triple loop", 4096);
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.detail, "exact match with host triple loop");
  const Check some = exact_match_check(3, "host triple loop", 4096);
  EXPECT_FALSE(some.passed);
  EXPECT_EQ(some.detail, "3 of 4096 entries differ from host triple loop");
  EXPECT_EQ(exact_match_check(1, "host triple loop").detail, "1 entries differ from host triple loop")
      << "without a total";
}

TEST(Findings, BestRowIsTheHighestRateAndTheFirstOfEquals) {
  const std::vector<CaseResult> results = {row("r0", DType::f32, 3), row("r1", DType::f32, 7),
                                           row("r2", DType::f32, 7), row("r3", DType::f32, 2)};
  const ResultRows rows = {&results[0], &results[1], &results[2], &results[3]};
  EXPECT_EQ(best_row(rows, &CaseResult::gbps)->spec.label, "r1");
  EXPECT_EQ(best_row(rows, &CaseResult::gflops)->spec.label, "r3") << "gflops = 100 - gbps: 98 is highest";
  EXPECT_EQ(best_row({}, &CaseResult::gbps), nullptr);
  // Per dtype: f64 rows r0 (3) and r2 (7), f32 rows r1 (7) and r3 (2).
  std::vector<CaseResult> mixed = results;
  mixed[0].spec.dtype = mixed[2].spec.dtype = DType::f64;
  const auto best = best_rows(mixed, row_dtype, &CaseResult::gbps);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best.at(DType::f64)->spec.label, "r2");
  EXPECT_EQ(best.at(DType::f32)->spec.label, "r1");
}

TEST(Findings, ACeilingShareIsWholeUnlessRoundingWouldPutItOnItsBound) {
  CaseResult r = row("d2d", DType::f32, 1);
  EXPECT_EQ(ceiling_note(r), "") << "no ceiling, no share";
  const auto note = [&r](double percent) {
    r.ceiling = CeilingShare{"host_memcpy", "host memcpy", percent};
    return ceiling_note(r);
  };
  EXPECT_EQ(note(41.3), ", 41 % of host memcpy");
  EXPECT_EQ(note(5.26), ", 5.3 % of host memcpy");
  EXPECT_EQ(note(141.4), ", 141 % of host memcpy");
  EXPECT_EQ(note(100), ", 100 % of host memcpy");
  // transfer.peak_gbps_d2d read "100 % of host memcpy" at 99.87 %: a row just under its bound
  // and one just past it must not read as the bound itself.
  EXPECT_EQ(note(99.87), ", 99.9 % of host memcpy");
  EXPECT_EQ(note(100.4), ", 100.4 % of host memcpy");
  r.peak = CeilingShare{"host_fma_f32", "the FMA peak", 93.6};
  EXPECT_EQ(ceiling_note(r), ", 100.4 % of host memcpy, 94 % of the FMA peak");
}

TEST(Findings, DtypesOnceInTheOrderSeenAndMediansToDivideBy) {
  const std::vector<CaseResult> results = {row("a", DType::f64, 1), row("b", DType::f32, 1),
                                           row("c", DType::f64, 1, 0)};
  EXPECT_EQ(dtypes_of(results), (std::vector<DType>{DType::f64, DType::f32}));
  EXPECT_TRUE(dtypes_of({}).empty());
  EXPECT_TRUE(has_median(&results[0]));
  EXPECT_FALSE(has_median(&results[2])) << "a zero median cannot divide";
  EXPECT_FALSE(has_median(nullptr));
}

TEST(Findings, CrossoverIsTheSmallestSizeFromWhichTheSecondSideAlwaysWins) {
  // size -> (first side, second side): the second wins at 32, 128 and 256 only, so the crossover
  // is 128 (index 3 of the five sizes both ran); 8 has no first-side time and does not count.
  const std::map<std::int64_t, std::pair<double, double>> mixed = {
      {8, {0, 1}}, {16, {1, 2}}, {32, {2, 1}}, {64, {4, 5}}, {128, {8, 4}}, {256, {16, 8}}};
  const Crossover x = find_crossover(mixed);
  EXPECT_EQ(x.sizes, (std::vector<std::int64_t>{16, 32, 64, 128, 256}));
  EXPECT_EQ(x.first, 3u);
  EXPECT_TRUE(x.found());
  const Crossover always = find_crossover({{16, {2, 1}}, {32, {4, 2}}});
  EXPECT_EQ(always.first, 0u) << "the second side wins from the smallest size";
  const Crossover never = find_crossover({{16, {2, 1}}, {32, {2, 2}}});
  EXPECT_EQ(never.first, 2u) << "a tie at the largest size is no win";
  EXPECT_FALSE(never.found());
  const Crossover empty = find_crossover({{16, {0, 1}}});
  EXPECT_TRUE(empty.sizes.empty());
  EXPECT_FALSE(empty.found());
}

// What a precision below float32 buys: float32's median time over the row's, per kernel, device
// kind and n; TF32 is a `<kernel>_tf32` variant against its kernel's float32 row; a row with no
// float32 row to compare with (float16 at n = 128 here) and float64 give none.
TEST(Findings, PrecisionSpeedupIsFloat32TimeOverTheRowsPerKernelAndSize) {
  const auto matmul_row = [](DType dtype, const std::string& variant, const std::string& n, double median) {
    CaseResult r = row(variant + " n=" + n, dtype, 0, median);
    r.spec.params = {{"n", n}, {"variant", variant}};
    return r;
  };
  std::vector<CaseResult> results = {
      matmul_row(DType::f32, "tiled", "64", 6),  matmul_row(DType::bf16, "tiled", "64", 2),
      matmul_row(DType::f32, "vendor", "64", 4), matmul_row(DType::f32, "vendor_tf32", "64", 1),
      matmul_row(DType::f16, "tiled", "128", 1), matmul_row(DType::f64, "tiled", "64", 12)};
  results[1].check.error = ReferenceError{0.0039, 0.0019};
  const std::vector<Finding> found = precision_speedup_findings(results);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "speedup_bfloat16_over_float32_tiled_cpu_n64");
  EXPECT_DOUBLE_EQ(found[0].value.value_or(0), 3.0);
  EXPECT_NE(found[0].note.find("error against float64 0.0039"), std::string::npos) << found[0].note;
  EXPECT_EQ(found[1].name, "speedup_tf32_over_float32_vendor_cpu_n64");
  EXPECT_DOUBLE_EQ(found[1].value.value_or(0), 4.0);
  EXPECT_EQ(found[1].note.find("error"), std::string::npos) << "no error measured, none quoted";
}

TEST(CommonKeys, DevicesListedOnceGpuMeaningTryGpu) {
  ConfigNode given(YAML::Load("{devices: [gpu, cpu, gpu]}"), "in.yaml", "x");
  const std::vector<Device> want =
      num_gpus() > 0 ? std::vector<Device>{gpu(0), cpu()} : std::vector<Device>{cpu()};
  EXPECT_EQ(read_devices(given), want) << "without a GPU, gpu is the cpu again";
  ConfigNode absent(YAML::Load("{}"), "in.yaml", "x");
  const std::vector<Device> both =
      num_gpus() > 0 ? std::vector<Device>{cpu(), gpu(0)} : std::vector<Device>{cpu()};
  EXPECT_EQ(read_devices(absent), both);
  ConfigNode bad(YAML::Load("{devices: [tpu]}"), "in.yaml", "x");
  EXPECT_THROW(read_devices(bad), InputError);
}

TEST(CommonKeys, SizesDropRepeatsAndKeepOrderAndBounds) {
  ConfigNode given(YAML::Load("{sizes: [64, 16, 64, 32, 16]}"), "in.yaml", "x");
  EXPECT_EQ(read_sizes(given, "sizes", {1}, 1, 100), (std::vector<std::int64_t>{64, 16, 32}));
  ConfigNode absent(YAML::Load("{}"), "in.yaml", "x");
  EXPECT_EQ(read_sizes(absent, "sizes", {8, 8, 4}, 1, 100), (std::vector<std::int64_t>{8, 4}));
  ConfigNode big(YAML::Load("{sizes: [101]}"), "in.yaml", "x");
  EXPECT_THROW(read_sizes(big, "sizes", {1}, 1, 100), InputError);
}

TEST(CommonKeys, RankSweepsAreSortedOnceAndWithinTheJob) {
  ConfigNode given(YAML::Load("{ranks: [4, 1, 2, 2]}"), "in.yaml", "x");
  EXPECT_EQ(read_rank_sweep(given, 4), (std::vector<std::int64_t>{1, 2, 4}));
  for (const auto& [job, sweep] :
       std::vector<std::pair<int, std::vector<std::int64_t>>>{{1, {1}}, {4, {1, 2, 4}}, {6, {1, 2, 4, 6}}}) {
    ConfigNode absent(YAML::Load("{}"), "in.yaml", "x");
    EXPECT_EQ(read_rank_sweep(absent, job), sweep) << "doubling up to the job's " << job << " ranks";
  }
  ConfigNode zero(YAML::Load("{ranks: [0, 1]}"), "in.yaml", "x");
  EXPECT_THROW(read_rank_sweep(zero, 4), InputError);
  ConfigNode above(YAML::Load("{ranks: [1, 5]}"), "in.yaml", "x");
  try {
    read_rank_sweep(above, 4);
    ADD_FAILURE() << "p=5 on a job of 4 ranks was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("p=5 is not between 1 and the job's 4 ranks"), std::string::npos)
        << e.what();
  }
}

TEST(CommKeys, GpuAwareMpiResolvesForTheDevice) {
  // The cpu's memory is host memory, which MPI always takes directly: auto and on are direct,
  // off stages, and there is no staged twin to measure beside direct.
  const auto path = [](const char* yaml) {
    ConfigNode node(YAML::Load(yaml), "in.yaml", "x");
    return read_comm_path(node, cpu());
  };
  EXPECT_EQ(path("{}"), comm::CommPath::direct);
  EXPECT_EQ(path("{gpu_aware_mpi: on}"), comm::CommPath::direct);
  EXPECT_EQ(path("{gpu_aware_mpi: off}"), comm::CommPath::staged);
  EXPECT_THROW(path("{gpu_aware_mpi: maybe}"), InputError);
  const auto paths = [](const char* yaml) {
    ConfigNode node(YAML::Load(yaml), "in.yaml", "x");
    return read_comm_paths(node, cpu());
  };
  EXPECT_EQ(paths("{}"), std::vector<comm::CommPath>{comm::CommPath::direct});
  EXPECT_EQ(paths("{gpu_aware_mpi: off}"), std::vector<comm::CommPath>{comm::CommPath::staged});
}

TEST(ConfigNames, ListsMapToTheirValuesInTheGivenOrder) {
  enum class Shape { square, round, flat };
  const std::vector<std::pair<std::string, Shape>> names = {
      {"square", Shape::square}, {"round", Shape::round}, {"flat", Shape::flat}};
  ConfigNode given(YAML::Load("{shapes: [flat, square, flat]}"), "in.yaml", "x");
  EXPECT_EQ(given.get_named_list<Shape>("shapes", names, {"round"}),
            (std::vector<Shape>{Shape::flat, Shape::square}));
  ConfigNode absent(YAML::Load("{}"), "in.yaml", "x");
  EXPECT_EQ(absent.get_named_list<Shape>("shapes", names, {"round"}), (std::vector<Shape>{Shape::round}));
  ConfigNode bad(YAML::Load("{shapes: [oval]}"), "in.yaml", "x");
  EXPECT_THROW(bad.get_named_list<Shape>("shapes", names, {"round"}), InputError);
}

}  // namespace
}  // namespace minigpu
