// gpucap: the words of every enumerated scenario key, one name table per enum.
//
// The loader reads a choice with its enum's table (read_choice), the key table's `choices` of
// the key are the same table's words (choice_words), and from the key table they reach the
// schema, `gpucap explain`, the docs and Python. tests/unit/choices_test.cpp checks that every
// `choice` row of the key table names the words of one of these tables.
//
//   for (const auto& c : gpucap::choices_of<gpucap::QueueDiscipline>()) std::puts(c.word);
#pragma once
#include <string>
#include <vector>

#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// One word of an enumerated key and the value it stands for. Several words may stand for one
/// value (`sjf` and `shortest_job_first`); the first is its name.
template <typename E>
struct Choice {
  const char* word;
  E value;
};

/// What a preemption log's running period cut by the log's start or end is: kept as a lower
/// bound of a lifetime, or dropped (an empirical distribution's `partial`).
enum class PartialPeriods : uint8_t { keep, drop };

/// What a blank end (or duration) in a deployment's trace means (arrivals.blank_end).
enum class BlankEnd : uint8_t { still_running };

/// The name table of enum E, in the order the docs list the words. Defined for ProviderKind,
/// PurchaseOption (from purchase_options.hpp), CompiledPool::PriceModel, TraceEnd,
/// WorkloadKind, ArrivalKind, TraceResample, QueueDiscipline, DistKind, PartialPeriods and
/// BlankEnd.
template <typename E>
const std::vector<Choice<E>>& choices_of();

/// The words of E's table separated by spaces ("fifo priority sjf shortest_job_first"), as the
/// key table's `choices` hold them; the pointer stays valid for the program's life.
template <typename E>
const char* choice_words() {
  static const std::string words = [] {
    std::string out;
    for (const Choice<E>& c : choices_of<E>()) out += (out.empty() ? "" : " ") + std::string(c.word);
    return out;
  }();
  return words.c_str();
}

/// The name of `value` (the first word that stands for it), or "?" when E's table lacks it.
template <typename E>
const char* choice_name(E value) {
  for (const Choice<E>& c : choices_of<E>())
    if (c.value == value) return c.word;
  return "?";
}

}  // namespace gpucap
