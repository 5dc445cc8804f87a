// Test support: run the gpucap command (GPUCAP_BINARY) and capture its exit code and output.
#pragma once
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace gpucap::testing_support {

struct CliOutcome {
  int exit_code;
  std::string output;  ///< stdout and stderr together
};

/// Runs `gpucap ARGUMENTS` through the shell.
inline CliOutcome gpucap_cli(const std::string& arguments) {
  const std::string command = std::string(GPUCAP_BINARY) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace gpucap::testing_support
