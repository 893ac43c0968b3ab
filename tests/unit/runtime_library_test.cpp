// RuntimeLibrary: a library opened at run time says why it is not usable, naming each path it
// tried and the first function missing.
#include <gtest/gtest.h>

#include <cstring>

#include "harness/env/runtime_library.hpp"

namespace preflight {
namespace {

TEST(RuntimeLibrary, NamesEveryPathTriedWhenNoneLoads) {
  RuntimeLibrary lib({"libpreflight-none.so.1", "/nowhere/libpreflight-none.so.1"});
  std::size_t (*length)(const char*) = nullptr;
  lib.find("strlen", length);
  EXPECT_EQ(length, nullptr);
  EXPECT_NE(lib.why_not().find("libpreflight-none.so.1"), std::string::npos) << lib.why_not();
  EXPECT_NE(lib.why_not().find("/nowhere/libpreflight-none.so.1"), std::string::npos)
      << lib.why_not();
}

TEST(RuntimeLibrary, FallsBackToTheNextPathAndNamesTheFirstMissingFunction) {
  RuntimeLibrary lib({"libpreflight-none.so.1", "libc.so.6"});
  std::size_t (*length)(const char*) = nullptr;
  lib.find("strlen", length);
  ASSERT_NE(length, nullptr) << lib.why_not();
  EXPECT_EQ(length("four"), 4u);
  EXPECT_EQ(lib.why_not(), "");
  void (*missing)() = nullptr;
  lib.find("preflight_no_such_function", missing);
  EXPECT_EQ(missing, nullptr);
  EXPECT_NE(lib.why_not().find("has no preflight_no_such_function"), std::string::npos)
      << lib.why_not();
}

}  // namespace
}  // namespace preflight
