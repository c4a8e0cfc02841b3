/* Libraries loaded on first use (dl.h). */
#include "lib/dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t dl_mu = PTHREAD_MUTEX_INITIALIZER;

int dl_load(struct dl_lib *lib, const char *what, char *err, size_t errlen)
{
	void *h;
	int rc = 0;

	pthread_mutex_lock(&dl_mu);
	if (lib->loaded)
		goto out;
	if (!(h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(err, errlen, "%s needs %s (apt-get install %s): %s", what,
			 lib->soname, lib->package, dlerror());
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < lib->n && !rc; i++)
		if (!(*lib->slots[i] = dlsym(h, lib->names[i]))) {
			snprintf(err, errlen, "%s: %s has no %s (too old a version)",
				 what, lib->soname, lib->names[i]);
			rc = -1;
		}
	if (rc) {
		for (size_t i = 0; i < lib->n; i++)
			*lib->slots[i] = NULL;
		dlclose(h);
	} else {
		lib->loaded = 1;
	}
out:
	pthread_mutex_unlock(&dl_mu);
	return rc;
}
