/* The PostgreSQL back end's small helpers shared by its files: one error
 * message from a failed result, a query with bound parameters, and int64 and
 * text values to and from libpq's text format. */
#include "schema/store_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pg_fail(struct pg_store *s, const char *what, const PGresult *res)
{
	const char *m = res ? PQresultErrorMessage(res) : "";
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	size_t n;

	if (!m || !*m)
		m = s->conn ? PQerrorMessage(s->conn) : "no connection";
	if (!strncmp(m, "ERROR:  ", 8))
		m += 8;
	n = strcspn(m, "\n");
	snprintf(s->base.msg, sizeof(s->base.msg), "%s: %.*s", what, (int)n, m);
	return state && !strcmp(state, "23505") ? -STORE_E_EXISTS
						 : -STORE_E_SQLITE;
}

int pg_exec(struct pg_store *s, const char *sql, int nparams,
	    const char *const *params, PGresult **res, const char *what)
{
	PGresult *r;
	ExecStatusType t;
	int rc;

	if (res)
		*res = NULL;
	if ((rc = pg_copy_end(s)))
		return rc;
	r = nparams ? PQexecParams(s->conn, sql, nparams, NULL, params, NULL,
				   NULL, 0)
		    : PQexec(s->conn, sql);
	t = PQresultStatus(r);
	if (t != PGRES_COMMAND_OK && t != PGRES_TUPLES_OK) {
		rc = pg_fail(s, what, r);
		PQclear(r);
		return rc;
	}
	if (res)
		*res = r;
	else
		PQclear(r);
	return 0;
}

const char *pg_i64(char *buf, int64_t v)
{
	snprintf(buf, 24, "%" PRId64, v);
	return buf;
}

int64_t pg_get_i64(const PGresult *res, int row, int col, int64_t none)
{
	if (PQgetisnull(res, row, col))
		return none;
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

double pg_get_double(const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col))
		return NAN;
	return strtod(PQgetvalue(res, row, col), NULL);
}

void pg_get_copy(const PGresult *res, int row, int col, char *out, size_t len)
{
	snprintf(out, len, "%s", PQgetisnull(res, row, col) ? ""
			 : PQgetvalue(res, row, col));
}
