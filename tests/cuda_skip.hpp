#pragma once
// The CUDA tests' skip: where the build has CUDA but the machine has no device, each GPU test says so and
// skips (GPU tests run for real on the lent GPU).
#include <gtest/gtest.h>

#include "cuda/cuda_backend.hpp"

#define SKIP_WITHOUT_DEVICE()                                                      \
    do {                                                                           \
        if (!cuda_device_info()) GTEST_SKIP() << "no CUDA device on this machine"; \
    } while (0)
