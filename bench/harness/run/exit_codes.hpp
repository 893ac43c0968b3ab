// The exit codes preflight ends with; README.md documents them and tests check each one.
#pragma once

namespace preflight::exit_code {
inline constexpr int kSuccess = 0;            // every case ran and every result was right
inline constexpr int kBenchmarkFailed = 1;    // a case produced wrong results
inline constexpr int kBadInput = 2;           // bad arguments or config; nothing was run
inline constexpr int kTimeout = 3;            // a case hung or ran past its timeout
inline constexpr int kInternalError = 4;      // preflight itself failed (I/O, MPI, a bug)
inline constexpr int kEnvironmentFailed = 5;  // an environment check failed; nothing measured
}  // namespace preflight::exit_code
