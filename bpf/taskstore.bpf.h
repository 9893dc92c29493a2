/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu's blocks under way (struct offcpu_start), kept one of two ways;
 * included by offcpu.bpf.c only, after CONSUMED and the starts map.
 *
 * - By thread id in the hash starts: every way to attach, every kernel.
 * - In task-local storage (task_starts, 5.11+), when user space sets
 *   task_store: the switch-in way only, whose tp_btf programs have the
 *   tasks as pointers bpf_task_storage_get() takes. No hashing, no
 *   bucket lock, no delete: a task's record is made at its first block
 *   and reused, a block ended by marking it CONSUMED; the kernel frees
 *   it with the task.
 *
 * A record in task storage is written where a snapshot's cut may read
 * it (the task iterator, on another CPU): it is hidden (cut CONSUMED)
 * while written, and shown with cut = its start, a value no earlier
 * block of the task had, so the cut's compare-and-swap cannot take an
 * old block's reading for the new one's. Every function takes the pid
 * and the task: the hash uses the first, task storage the second.
 */
#ifndef STACKBOX_TASKSTORE_BPF_H
#define STACKBOX_TASKSTORE_BPF_H

/* Turned into a hash of one entry by user space where the kernel has
 * no task storage: a map of every object, used only with task_store. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_start);
} task_starts SEC(".maps");

const volatile __u8 task_store = 0;

/* The task's record, live or not; made when create. The programs for
 * kernels before 5.13 have none (the switch-in way is not theirs). */
#if SB_MODERN
static __always_inline struct offcpu_start *task_record(void *task, int create)
{
	return bpf_task_storage_get(&task_starts, task, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE
					   : 0);
}
#else
static __always_inline struct offcpu_start *task_record(void *task, int create)
{
	return NULL;
}
#endif

/* The block under way of thread pid (task), or NULL. */
static __always_inline struct offcpu_start *start_of(__u32 pid, void *task)
{
	struct offcpu_start *s;

	if (!task_store)
		return bpf_map_lookup_elem(&starts, &pid);
	s = task ? task_record(task, 0) : NULL;
	return s && s->ts && s->cut != CONSUMED ? s : NULL;
}

/* Keep st as pid's block under way; 0, or the map had no room. */
static __always_inline int start_put(__u32 pid, void *task,
				     struct offcpu_start *st)
{
	struct offcpu_start *s;

	if (!task_store)
		return bpf_map_update_elem(&starts, &pid, st, BPF_ANY);
	s = task ? task_record(task, 1) : NULL;
	if (!s)
		return -1;
	__sync_lock_test_and_set(&s->cut, CONSUMED); /* hidden */
	s->ts = st->ts;
	s->ran = st->ran;
	s->woken = 0;
	s->user_later = st->user_later;
	s->key = st->key;
	__sync_lock_test_and_set(&s->cut, st->ts); /* shown, in this order */
	return 0;
}

/* pid's block s has been counted, or dropped. */
static __always_inline void start_end(__u32 pid, struct offcpu_start *s)
{
	if (task_store)
		s->cut = CONSUMED;
	else
		bpf_map_delete_elem(&starts, &pid);
}

#endif
