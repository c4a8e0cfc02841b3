/* libpq, loaded when a PostgreSQL store is opened (lib/dl.h), not at
 * every start: linked, its tree (libssl, libcrypto, Kerberos, LDAP,
 * GnuTLS) took 4 MiB of every iotape process's resident set, the flight
 * recorder's among them, which never talks to a server. The back end's files
 * (schema/store_pg*.c) include this instead of <libpq-fe.h> and call PQ*
 * as ever: each name below stands for the pointer pq_load() found. */
#ifndef IOTAPE_PQ_DL_H
#define IOTAPE_PQ_DL_H

#include <stddef.h>

#include <libpq-fe.h>

/* The libpq calls the back end makes (libpq-fe.h, PostgreSQL 15). */
#define PQ_FUNCS(X) X(PQclear) X(PQcmdStatus) X(PQcmdTuples) \
	X(PQconnectdbParams) X(PQconninfoFree) X(PQconninfoParse) \
	X(PQerrorMessage) X(PQexec) X(PQexecParams) X(PQfinish) \
	X(PQfreemem) X(PQftype) X(PQgetResult) X(PQgetisnull) \
	X(PQgetlength) X(PQgetvalue) X(PQnfields) \
	X(PQntuples) X(PQputCopyData) X(PQputCopyEnd) \
	X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) \
	X(PQsetNoticeProcessor) X(PQstatus) X(PQtransactionStatus) \
	X(PQescapeIdentifier) X(PQuser) X(PQescapeLiteral) X(PQgetCopyData)

struct pq_api {
#define PQ_MEMBER(f) __typeof__(&f) f##_p;
	PQ_FUNCS(PQ_MEMBER)
#undef PQ_MEMBER
};

extern struct pq_api pq_api;

/* Loads libpq (the soname libpq.so.5, as the libpq5 package installs it)
 * and every call above (lib/dl.h's dl_load()), once per process; later
 * calls return at once. Returns 0, or -1 with a one-line message in err
 * (errlen bytes) naming the library or the missing symbol. Thread-safe. */
int pq_load(char *err, size_t errlen);

#ifndef PQ_DL_IMPL
#define PQclear (pq_api.PQclear_p)
#define PQcmdStatus (pq_api.PQcmdStatus_p)
#define PQcmdTuples (pq_api.PQcmdTuples_p)
#define PQconnectdbParams (pq_api.PQconnectdbParams_p)
#define PQconninfoFree (pq_api.PQconninfoFree_p)
#define PQconninfoParse (pq_api.PQconninfoParse_p)
#define PQerrorMessage (pq_api.PQerrorMessage_p)
#define PQexec (pq_api.PQexec_p)
#define PQexecParams (pq_api.PQexecParams_p)
#define PQfinish (pq_api.PQfinish_p)
#define PQfreemem (pq_api.PQfreemem_p)
#define PQgetResult (pq_api.PQgetResult_p)
#define PQgetisnull (pq_api.PQgetisnull_p)
#define PQgetlength (pq_api.PQgetlength_p)
#define PQftype (pq_api.PQftype_p)
#define PQnfields (pq_api.PQnfields_p)
#define PQgetvalue (pq_api.PQgetvalue_p)
#define PQntuples (pq_api.PQntuples_p)
#define PQputCopyData (pq_api.PQputCopyData_p)
#define PQputCopyEnd (pq_api.PQputCopyEnd_p)
#define PQresultErrorField (pq_api.PQresultErrorField_p)
#define PQresultErrorMessage (pq_api.PQresultErrorMessage_p)
#define PQresultStatus (pq_api.PQresultStatus_p)
#define PQsetNoticeProcessor (pq_api.PQsetNoticeProcessor_p)
#define PQstatus (pq_api.PQstatus_p)
#define PQtransactionStatus (pq_api.PQtransactionStatus_p)
#define PQescapeIdentifier (pq_api.PQescapeIdentifier_p)
#define PQuser (pq_api.PQuser_p)
#define PQescapeLiteral (pq_api.PQescapeLiteral_p)
#define PQgetCopyData (pq_api.PQgetCopyData_p)
#endif

#endif
