/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel BTF lives with the rest of kernel probing: kernel.h. */
#include "kernel.h"
