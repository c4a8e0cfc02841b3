/* libfuse3, loaded when a modelled disk is started (lib/dl.h), not at
 * every start of iotape: only `iotape disk start` serves a FUSE file
 * system. model/disk_fuse.c includes this instead of <fuse_lowlevel.h> and
 * calls fuse_* as ever: each name below stands for the pointer fuse_load()
 * found. The low-level API (fuse_lowlevel.h, libfuse 3.14, FUSE protocol
 * 7.31 and later) is used so that a request can be answered later, from
 * the disk's timer, not from inside its handler. */
#ifndef IOTAPE_FUSE_DL_H
#define IOTAPE_FUSE_DL_H

#include <stddef.h>

#define FUSE_USE_VERSION 35
#include <fuse3/fuse_lowlevel.h>

/* The libfuse calls the disk makes. */
#define FUSE_FUNCS(X) X(fuse_session_new) X(fuse_session_mount) \
	X(fuse_session_unmount) X(fuse_session_destroy) X(fuse_session_fd) \
	X(fuse_session_receive_buf) X(fuse_session_process_buf) \
	X(fuse_session_exit) X(fuse_session_exited) X(fuse_reply_err) \
	X(fuse_reply_none) X(fuse_reply_entry) X(fuse_reply_attr) \
	X(fuse_reply_open) X(fuse_reply_write) X(fuse_reply_buf) \
	X(fuse_reply_statfs) X(fuse_req_userdata) X(fuse_set_log_func) \
	X(fuse_opt_free_args)

struct fuse_api {
#define FUSE_MEMBER(f) __typeof__(&f) f##_p;
	FUSE_FUNCS(FUSE_MEMBER)
#undef FUSE_MEMBER
};

extern struct fuse_api fuse_api;

/* Loads libfuse3 (the soname libfuse3.so.3, package libfuse3-3) and every
 * call above, once per process (dl_load()). Returns 0, or -1 with a
 * one-line message in err (errlen bytes). Thread-safe. */
int fuse_load(char *err, size_t errlen);

#ifndef FUSE_DL_IMPL
#define fuse_session_new (fuse_api.fuse_session_new_p)
#define fuse_session_mount (fuse_api.fuse_session_mount_p)
#define fuse_session_unmount (fuse_api.fuse_session_unmount_p)
#define fuse_session_destroy (fuse_api.fuse_session_destroy_p)
#define fuse_session_fd (fuse_api.fuse_session_fd_p)
#define fuse_session_receive_buf (fuse_api.fuse_session_receive_buf_p)
#define fuse_session_process_buf (fuse_api.fuse_session_process_buf_p)
#define fuse_session_exit (fuse_api.fuse_session_exit_p)
#define fuse_session_exited (fuse_api.fuse_session_exited_p)
#define fuse_reply_err (fuse_api.fuse_reply_err_p)
#define fuse_reply_none (fuse_api.fuse_reply_none_p)
#define fuse_reply_entry (fuse_api.fuse_reply_entry_p)
#define fuse_reply_attr (fuse_api.fuse_reply_attr_p)
#define fuse_reply_open (fuse_api.fuse_reply_open_p)
#define fuse_reply_write (fuse_api.fuse_reply_write_p)
#define fuse_reply_buf (fuse_api.fuse_reply_buf_p)
#define fuse_reply_statfs (fuse_api.fuse_reply_statfs_p)
#define fuse_req_userdata (fuse_api.fuse_req_userdata_p)
#define fuse_set_log_func (fuse_api.fuse_set_log_func_p)
#define fuse_opt_free_args (fuse_api.fuse_opt_free_args_p)
#endif

#endif
