// SPDX-License-Identifier: GPL-2.0
/* The data model's names, shared by the writers and the readers. */
#include "snapshot.h"

const char *const mark_kind_name[MARK_MAX] = {
	[MARK_FIRED] = "fired",
	[MARK_CLEARED] = "cleared",
	[MARK_WINDOW] = "window",
};
