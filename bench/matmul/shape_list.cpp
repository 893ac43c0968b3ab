#include "matmul/shape_list.hpp"

#include <sstream>

namespace preflight::matmul {

// "4096x11008x4096,8192x8192x8192" -> shapes; a bad one names the key and the fix.
std::vector<Shape> parse_shapes(const std::string& text, const ConfigNode& entry,
                                const std::string& key) {
  std::vector<Shape> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    Shape s;
    char x1 = 0, x2 = 0;
    std::istringstream in(item);
    if (!(in >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' || !in.eof() || s.m < 1 ||
        s.n < 1 || s.k < 1 || s.m > 65536 || s.n > 65536 || s.k > 1048576)
      entry.fail(key,
                 "MxNxK with whole numbers (m, n up to 65536, k up to 1048576), e.g. "
                 "4096x11008x4096",
                 "'" + item + "'");
    out.push_back(s);
  }
  return out;
}

}  // namespace preflight::matmul
