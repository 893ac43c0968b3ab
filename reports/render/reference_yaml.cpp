#include "render/reference_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace preflight::report {
namespace {

// Numbers to 6 significant digits: what the figures can tell, and what a reader can check.
std::string yaml_number(double v) {
  return fmt::format("{:.6g}", v);
}

void emit_figure(YAML::Emitter& out, const Rule& r) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << r.name;
  out << YAML::Key << "where" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& [key, values] : r.where) {
    out << YAML::Key << key << YAML::Value;
    if (values.size() == 1)
      out << *values.begin();
    else
      out << YAML::Flow << std::vector<std::string>(values.begin(), values.end());
  }
  out << YAML::EndMap;
  if (!r.sizes.empty()) {
    std::vector<std::string> sizes;
    for (double s : r.sizes) sizes.push_back(fmt::format("{:.0f}", s));  // bytes: whole numbers
    out << YAML::Key << "sizes" << YAML::Value << YAML::Flow << sizes;
  }
  out << YAML::Key << "metric" << YAML::Value << r.metric;
  if (!r.better.empty()) out << YAML::Key << "better" << YAML::Value << r.better;
  out << YAML::Key << "unit" << YAML::Value << r.unit;
  out << YAML::Key << "typical" << YAML::Value << yaml_number(r.typical);
  out << YAML::Key << "floor" << YAML::Value << yaml_number(r.expect);
  out << YAML::Key << "source" << YAML::Value << r.source;
  out << YAML::EndMap;
}

}  // namespace

std::string render_reference_yaml(const EnvelopeText& e) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "reference" << YAML::Value << e.name;
  out << YAML::Key << "title" << YAML::Value << e.title;
  out << YAML::Key << "made_from" << YAML::Value << e.made_from;
  out << YAML::Key << "match" << YAML::Value << YAML::BeginMap;
  for (const auto& [column, pattern] : e.match)
    out << YAML::Key << column << YAML::Value << pattern;
  out << YAML::EndMap;
  out << YAML::Key << "figures" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : e.figures) emit_figure(out, r);
  out << YAML::EndSeq << YAML::EndMap;
  return fmt::format(
      "# A reference envelope made by preflight-report --make-reference (docs/references.md).\n"
      "# Judge later runs against it: preflight-report NEW.h5 --reference THIS.yaml\n{}\n",
      out.c_str());
}

}  // namespace preflight::report
