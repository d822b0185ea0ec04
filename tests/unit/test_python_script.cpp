// run_python_script's budget and stop: a script that never returns is ended and reported, so
// `minigpu run --plot` cannot hold the other ranks forever, and a Ctrl-C ends it. The "python3"
// here is a shell script put first on PATH, which writes its pid beside the script it was given
// and then sleeps.
#include "app/python_script.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace minigpu {
namespace {

namespace fs = std::filesystem;

class PythonScript : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("minigpu_python_script_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (dir_.string() + ":" + old_path_).c_str(), 1);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    fs::remove_all(dir_);
  }
  // A "python3" that runs `body` (sh) after writing its pid to SCRIPT.pid.
  void fake_python(const std::string& body) {
    const fs::path exe = dir_ / "python3";
    std::ofstream(exe) << "#!/bin/sh\necho $$ > \"$1.pid\"\n" << body << '\n';
    fs::permissions(exe, fs::perms::owner_all);
  }
  // Runs it with `timeout_s`: its code, and the seconds it took in `took_s`.
  int run(double timeout_s, double& took_s, const std::function<bool()>& stopped = {}) {
    const auto start = std::chrono::steady_clock::now();
    const int code = run_python_script(dir_ / "plot.py", {"results/x"}, timeout_s, stopped);
    took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return code;
  }
  // Whether the process the fake python3 became still exists (reaped or not).
  bool still_there() const {
    pid_t pid = 0;
    std::ifstream(dir_ / "plot.py.pid") >> pid;
    EXPECT_GT(pid, 0) << "the fake python3 never ran";
    return pid > 0 && (::kill(pid, 0) == 0 || errno != ESRCH);
  }
  fs::path dir_;
  std::string old_path_;
};

TEST_F(PythonScript, ExitCodeComesBackWithinItsBudget) {
  fake_python("exit 3");
  double took = 0;
  EXPECT_EQ(run(30, took), 3);
  EXPECT_LT(took, 10);
  fake_python("exit 0");
  EXPECT_EQ(run(0, took), 0);  // no budget: waited for
}

TEST_F(PythonScript, ScriptPastItsBudgetIsEndedAndReported) {
  fake_python("exec sleep 60");
  double took = 0;
  EXPECT_EQ(run(0.5, took), kScriptTimedOut);
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 2.0) << "sleep ends on SIGTERM: nothing to wait for past the budget";
  EXPECT_FALSE(still_there()) << "the script was left running";
}

TEST_F(PythonScript, ScriptIgnoringSigtermIsKilled) {
  fake_python("trap '' TERM\nexec sleep 60");  // an ignored signal stays ignored across exec
  double took = 0;
  EXPECT_EQ(run(0.5, took), kScriptTimedOut);
  EXPECT_GE(took, 2.5) << "SIGTERM was ignored: 2 s go by before SIGKILL";
  EXPECT_LT(took, 5.0);
  EXPECT_FALSE(still_there()) << "the script was left running";
}

// A Ctrl-C that reached minigpu and not the script (a launcher signals its ranks alone).
TEST_F(PythonScript, StopEndsTheScript) {
  fake_python("exec sleep 60");
  const auto asked_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  double took = 0;
  EXPECT_EQ(run(30, took, [&] { return std::chrono::steady_clock::now() >= asked_at; }), kScriptStopped);
  EXPECT_GE(took, 0.3);
  EXPECT_LT(took, 2.0);
  EXPECT_FALSE(still_there()) << "the script was left running";
}

}  // namespace
}  // namespace minigpu
