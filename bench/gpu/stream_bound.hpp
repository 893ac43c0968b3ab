// An operation whose work is queued on a CUDA stream, and which can be told to queue it on
// another: the step family puts all its GEMMs on one compute stream and all its collectives on
// one communication stream, ordered by events, as training frameworks do (step/step_schedule.hpp).
// The stream is a cudaStream_t held as void*, so that code built without CUDA can hold one.
#pragma once

namespace preflight::gpu {

class StreamBound {
 public:
  virtual ~StreamBound() = default;
  // The stream later launches queue on.
  virtual void* stream() const = 0;
  // Queue later launches (and wait() for them) on `stream`, a stream of the same device.
  virtual void use_stream(void* stream) = 0;
};

}  // namespace preflight::gpu
