// A run that ends on a signal prints the command that finishes it, which users copy as it
// stands: under a bare launcher it must start with that launcher and its rank count, or the
// resumed run is one rank and refuses the input's `ranks: 2`.
#include "app/resume_command.hpp"

#include <unistd.h>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace minigpu {
namespace {

// A process's argv from /proc (Linux); empty when it cannot be read.
std::vector<std::string> command_line(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  std::string word;
  for (char c : raw) {
    if (c != '\0') {
      word += c;
    } else {
      words.push_back(word);
      word.clear();
    }
  }
  return words;
}

long parent_of(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  long ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

bool is_launcher(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  for (const char* known : {"mpirun", "mpiexec", "orterun", "prterun", "mpiexec.hydra", "mpirun.openmpi",
                            "mpiexec.openmpi", "mpirun.mpich", "mpiexec.mpich"})
    if (name == known) return true;
  return false;
}

}  // namespace

std::vector<std::string> launcher_words(const std::string& binary, int ranks) {
  if (ranks <= 1) return {};
  // Open MPI forks its local ranks from mpirun (4.x) or from prted under it (5.x); Hydra from
  // hydra_pmi_proxy under mpiexec. Four generations cover both with a wrapper between.
  long pid = static_cast<long>(getppid());
  for (int generation = 0; generation < 4 && pid > 1; ++generation, pid = parent_of(pid)) {
    const std::vector<std::string> words = command_line(pid);
    if (words.empty() || !is_launcher(words.front())) continue;
    for (std::size_t i = 1; i < words.size(); ++i)
      if (words[i] == binary) return {words.begin(), words.begin() + static_cast<long>(i)};
    break;  // a launcher that does not name this binary as given (a wrapper script runs it)
  }
  const std::string n = std::to_string(ranks);
  if (std::getenv("SLURM_STEP_ID") != nullptr) return {"srun", "-n", n};
  return {"mpiexec", "-n", n};
}

std::vector<std::string> resume_command(int argc, char** argv, int ranks) {
  std::vector<std::string> out;
  const char* with = std::getenv("MINIGPU_RESUME_WITH");
  if (with != nullptr && *with != '\0') {
    std::istringstream words(with);
    for (std::string w; words >> w;) out.push_back(w);
  } else {
    out = launcher_words(argv[0], ranks);
    out.insert(out.end(), {argv[0], "run"});
  }
  bool after_run = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (!after_run) {
      after_run = word == "run";
    } else if (word == "--resume" || word == "--output-dir") {
      ++i;
    } else if (word.rfind("--resume=", 0) != 0 && word.rfind("--output-dir=", 0) != 0) {
      out.push_back(word);
    }
  }
  return out;
}

}  // namespace minigpu
