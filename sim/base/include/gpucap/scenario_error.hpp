// gpucap: the error every scenario problem raises.
#pragma once
#include <stdexcept>

namespace gpucap {

/// A scenario that cannot be used, with a message written for a person: the file, line and
/// column, the key path, what is wrong and what would be valid.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpucap
