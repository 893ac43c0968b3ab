#!/usr/bin/env bash
# without_gpu.sh COMMAND...: runs a test of the no-GPU path with every GPU hidden
# (CUDA_VISIBLE_DEVICES set empty: CUDA then sees no device, as on a machine without one), so
# that it tests the same thing, and passes, on a GPU machine too.
export CUDA_VISIBLE_DEVICES=
exec "$@"
