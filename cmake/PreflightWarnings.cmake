# One place for the warning flags every target of ours gets.
add_library(preflight_warnings INTERFACE)
target_compile_options(preflight_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference>)
if(PREFLIGHT_WERROR)
  target_compile_options(preflight_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
