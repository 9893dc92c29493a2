/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for iostack: named functions that move known numbers of
 * bytes through each I/O syscall, on files, sockets and pipes. Every
 * chain is main -> run_MODE -> NAMED -> libc, and each named function
 * makes its calls in a loop of its own, so its bytes and calls are
 * exact. Sizes below are per call.
 *
 *   io files DIR [DIR2]  in DIR/io.data (then in DIR2/io.data):
 *     file_writer:  8 x write 4096           (32768 bytes)
 *     file_reader:  8 x read 4096, then a read at EOF (0 bytes): 9 calls
 *     short_reader: one read of 65536 at offset 30000 -> 2768 bytes
 *     file_pwriter: 4 x pwrite64 1000        (4000 bytes)
 *     file_preader: 4 x pread64 1000         (4000 bytes)
 *     vec_writer:   3 x writev 2 x 1500      (9000 bytes)
 *     vec_reader:   3 x readv 2 x 1500       (9000 bytes)
 *     vec_pwriter:  2 x pwritev 2 x 700, 2 x pwritev2 (5600 bytes)
 *     vec_preader:  2 x preadv 2 x 700, 2 x preadv2   (5600 bytes)
 *                   (the v2 forms through syscall(): musl has no wrapper)
 *   io socket         over a socketpair (AF_UNIX, SOCK_STREAM):
 *     sock_sender:  5 x send 3000 (sendto), 2 x sendmsg 2 x 1000
 *                   (19000 bytes)
 *     sock_receiver: recv (recvfrom) and recvmsg until 19000 bytes: the
 *                   number of calls depends on how the kernel hands
 *                   them out; the bytes do not
 *   io pipe           pipe_writer: 6 x write 512 to a pipe;
 *                     pipe_reader: 6 x read 512 from it
 *   io badfd          bad_writer: 3 x write(-1, 100) -> 3 errors, 0 bytes
 *   io transfer DIR   sendfile_copy: sendfile 20000 from DIR/io.data to
 *                     a socket; splice_copy: splice 4096 from a pipe to
 *                     DIR/io.out
 *   io all DIR        files DIR, socket, pipe, badfd and transfer DIR
 *   io direct PATH N SZ  direct_writer: N x pwrite SZ with O_DIRECT to
 *                     PATH, fdatasync; direct_reader: N x pread SZ back
 *   io fsync PATH N SZ   buffered_writer: N x write SZ to PATH (page
 *                     cache); fsync_caller: fsync, which writes them
 *   io buffered PATH N SZ  buffered_writer alone: writeback writes them
 *   io loop N SZ      rw_loop: N x (read SZ from /dev/zero, write SZ to
 *                     /dev/null) (the benchmark's loop)
 *   io nop N          nop_loop: N x getppid(), a syscall iostack does not
 *                     count (what its hook costs every other syscall)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define NAMED __attribute__((noinline, noclone))

static volatile long sink;
static char buf[65536] __attribute__((aligned(4096)));

static void must(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

NAMED void file_writer(int fd)
{
	for (int i = 0; i < 8; i++)
		sink += write(fd, buf, 4096);
}

NAMED void file_reader(int fd)
{
	for (int i = 0; i < 9; i++) /* the ninth is at the end: 0 bytes */
		sink += read(fd, buf, 4096);
}

NAMED void short_reader(int fd)
{
	sink += read(fd, buf, sizeof(buf));
}

NAMED void file_pwriter(int fd)
{
	for (int i = 0; i < 4; i++)
		sink += pwrite(fd, buf, 1000, 40000 + i * 1000);
}

NAMED void file_preader(int fd)
{
	for (int i = 0; i < 4; i++)
		sink += pread(fd, buf, 1000, i * 1000);
}

NAMED void vec_writer(int fd)
{
	struct iovec iov[2] = {{buf, 1500}, {buf + 1500, 1500}};

	for (int i = 0; i < 3; i++)
		sink += writev(fd, iov, 2);
}

NAMED void vec_reader(int fd)
{
	struct iovec iov[2] = {{buf, 1500}, {buf + 1500, 1500}};

	for (int i = 0; i < 3; i++)
		sink += readv(fd, iov, 2);
}

NAMED void vec_pwriter(int fd)
{
	struct iovec iov[2] = {{buf, 700}, {buf + 700, 700}};

	for (int i = 0; i < 2; i++)
		sink += pwritev(fd, iov, 2, 50000 + i * 1400);
	for (int i = 0; i < 2; i++) /* musl 1.2.3 has no pwritev2() */
		sink += syscall(SYS_pwritev2, fd, iov, 2, 60000 + i * 1400, 0,
				0);
}

NAMED void vec_preader(int fd)
{
	struct iovec iov[2] = {{buf, 700}, {buf + 700, 700}};

	for (int i = 0; i < 2; i++)
		sink += preadv(fd, iov, 2, i * 1400);
	for (int i = 0; i < 2; i++) /* pos low, pos high, flags */
		sink += syscall(SYS_preadv2, fd, iov, 2, 10000 + i * 1400, 0,
				0);
}

static void run_files(const char *dir)
{
	char *path;
	int fd;

	must(asprintf(&path, "%s/io.data", dir) > 0, "asprintf");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	must(fd >= 0, path);
	file_writer(fd); /* 32768 bytes: the file's size */
	must(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	file_reader(fd);
	must(lseek(fd, 30000, SEEK_SET) == 30000, "lseek");
	short_reader(fd); /* 32768 - 30000 = 2768 bytes */
	file_pwriter(fd);
	file_preader(fd);
	must(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	vec_writer(fd);
	must(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	vec_reader(fd);
	vec_pwriter(fd);
	vec_preader(fd);
	close(fd);
	free(path);
}

NAMED void sock_sender(int fd)
{
	struct iovec iov[2] = {{buf, 1000}, {buf + 1000, 1000}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

	for (int i = 0; i < 5; i++)
		sink += send(fd, buf, 3000, 0);
	for (int i = 0; i < 2; i++)
		sink += sendmsg(fd, &msg, 0);
}

NAMED void sock_receiver(int fd, long want)
{
	static char in[4096];
	struct iovec iov = {in, 1500};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	long got = 0;

	for (int i = 0; got < want; i++) {
		long n = i & 1 ? recvmsg(fd, &msg, 0)
			       : recv(fd, in, sizeof(in), 0);

		must(n > 0, "recv");
		got += n;
	}
	sink += got;
}

static void run_socket(void)
{
	int sv[2];

	must(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	sock_sender(sv[0]); /* 19000 bytes fit in the socket's buffer */
	sock_receiver(sv[1], 19000);
	close(sv[0]);
	close(sv[1]);
}

NAMED void pipe_writer(int fd)
{
	for (int i = 0; i < 6; i++)
		sink += write(fd, buf, 512);
}

NAMED void pipe_reader(int fd)
{
	for (int i = 0; i < 6; i++)
		sink += read(fd, buf, 512);
}

static void run_pipe(void)
{
	int p[2];

	must(!pipe(p), "pipe");
	pipe_writer(p[1]);
	pipe_reader(p[0]);
	close(p[0]);
	close(p[1]);
}

NAMED void bad_writer(void)
{
	for (int i = 0; i < 3; i++)
		sink += write(-1, buf, 100);
}

NAMED void sendfile_copy(int out, int in)
{
	sink += sendfile(out, in, NULL, 20000);
}

NAMED void splice_copy(int in, int out)
{
	sink += splice(in, NULL, out, NULL, 4096, 0);
}

static void run_transfer(const char *dir)
{
	static char in[32768];
	char *data, *out;
	int sv[2], p[2], fd, ofd;

	must(asprintf(&data, "%s/io.data", dir) > 0 &&
		     asprintf(&out, "%s/io.out", dir) > 0,
	     "asprintf");
	fd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0600);
	must(fd >= 0 && write(fd, buf, 32768) == 32768, data);
	must(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	must(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	sendfile_copy(sv[0], fd); /* 20000 of 32768 bytes */
	must(read(sv[1], in, sizeof(in)) > 0, "read");
	must(!pipe(p) && write(p[1], buf, 4096) == 4096, "pipe");
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	must(ofd >= 0, out);
	splice_copy(p[0], ofd);
	close(fd);
	close(ofd);
	free(data);
	free(out);
}

NAMED void direct_writer(int fd, long n, size_t size)
{
	for (long i = 0; i < n; i++)
		sink += pwrite(fd, buf, size, i * size);
	sink += fdatasync(fd);
}

NAMED void direct_reader(int fd, long n, size_t size)
{
	for (long i = 0; i < n; i++)
		sink += pread(fd, buf, size, i * size);
}

static void run_direct(const char *path, long n, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0600);

	must(fd >= 0, path);
	must(size <= sizeof(buf) && size % 4096 == 0, "size");
	direct_writer(fd, n, size);
	direct_reader(fd, n, size);
	close(fd);
}

NAMED void buffered_writer(int fd, long n, size_t size)
{
	for (long i = 0; i < n; i++)
		sink += write(fd, buf, size);
}

NAMED void fsync_caller(int fd)
{
	sink += fsync(fd);
}

static void run_fsync(const char *path, long n, size_t size, int sync)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	must(fd >= 0 && size <= sizeof(buf), path);
	buffered_writer(fd, n, size);
	if (sync)
		fsync_caller(fd);
	close(fd);
}

NAMED void rw_loop(long n, size_t size)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);

	must(in >= 0 && out >= 0 && size <= sizeof(buf), "/dev/zero");
	for (long i = 0; i < n; i++) {
		sink += read(in, buf, size);
		sink += write(out, buf, size);
	}
	close(in);
	close(out);
}

NAMED void nop_loop(long n)
{
	for (long i = 0; i < n; i++)
		sink += syscall(SYS_getppid);
}

static void run_files2(const char *dir, const char *dir2)
{
	run_files(dir);
	if (dir2)
		run_files(dir2);
}

static void run_all(const char *dir)
{
	run_files(dir);
	run_socket();
	run_pipe();
	bad_writer();
	run_transfer(dir);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "/tmp";

	memset(buf, 'x', sizeof(buf));
	if (!strcmp(mode, "files"))
		run_files2(arg, argc > 3 ? argv[3] : NULL);
	else if (!strcmp(mode, "all"))
		run_all(arg);
	else if (!strcmp(mode, "fsync") && argc > 4)
		run_fsync(arg, atol(argv[3]), atol(argv[4]), 1);
	else if (!strcmp(mode, "buffered") && argc > 4)
		run_fsync(arg, atol(argv[3]), atol(argv[4]), 0);
	else if (!strcmp(mode, "socket"))
		run_socket();
	else if (!strcmp(mode, "pipe"))
		run_pipe();
	else if (!strcmp(mode, "badfd"))
		bad_writer();
	else if (!strcmp(mode, "transfer"))
		run_transfer(arg);
	else if (!strcmp(mode, "direct") && argc > 4)
		run_direct(arg, atol(argv[3]), atol(argv[4]));
	else if (!strcmp(mode, "nop") && argc > 2)
		nop_loop(atol(argv[2]));
	else if (!strcmp(mode, "loop") && argc > 3)
		rw_loop(atol(argv[2]), atol(argv[3]));
	else
		return 2;
	return 0;
}
