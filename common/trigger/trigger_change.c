// SPDX-License-Identifier: GPL-2.0
/* A source's side of a trigger: fire and clear, told to its owner. */
#include <stdarg.h>
#include <stdio.h>

#include "trigger.h"

static void change(struct trigger *t, bool fire, uint64_t now, const char *fmt,
		   va_list ap)
{
	if (t->active == fire && !t->momentary)
		return;
	vsnprintf(t->cause, sizeof(t->cause), fmt, ap);
	t->active = fire;
	t->changed(t->owner, t, fire, now);
	/* an event: it fired, and is over at once; --hold writes on */
	if (fire && t->momentary) {
		t->active = false;
		t->changed(t->owner, t, false, now);
	}
}

void trigger_fire(struct trigger *t, uint64_t now, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	change(t, true, now, fmt, ap);
	va_end(ap);
}

void trigger_clear(struct trigger *t, uint64_t now, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	change(t, false, now, fmt, ap);
	va_end(ap);
}
