// A reference envelope as YAML (docs/references.md), as --make-reference writes it: readable by
// read_reference() and by a person who edits it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/acceptance.hpp"

namespace preflight::report {

struct EnvelopeText {
  std::string name, title, made_from;
  std::vector<std::pair<std::string, std::string>> match;  // environment column -> pattern
  std::vector<Rule> figures;                               // expect: the floor
};

std::string render_reference_yaml(const EnvelopeText& envelope);

}  // namespace preflight::report
