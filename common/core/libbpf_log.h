/* SPDX-License-Identifier: GPL-2.0 */
/* libbpf's messages: kept for errors, printed under -v -v. */
#ifndef STACKBOX_LIBBPF_LOG_H
#define STACKBOX_LIBBPF_LOG_H

/* From now on libbpf prints through us. */
void libbpf_log_start(void);
/* The program named by the last "failed to load" (empty: none). */
const char *libbpf_failed_prog(void);
void libbpf_failed_reset(void);

#endif
