/* The subcommand table's entries: one entry point per subcommand, each in
 * the folder of its pipeline stage. Each returns 0, or -1 after printing one
 * error line, or a positive exit code (2 for usage errors). */
#ifndef IOTAPE_COMMANDS_H
#define IOTAPE_COMMANDS_H

#define IOTAPE_VERSION "0.1"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

int cmd_import(int argc, char **argv);  /* import/cmd_import.c */
int cmd_runs(int argc, char **argv);    /* runs/cmd_runs.c */
int cmd_rm(int argc, char **argv);      /* runs/cmd_manage.c */
int cmd_mv(int argc, char **argv);      /* runs/cmd_manage.c */
int cmd_vacuum(int argc, char **argv);  /* runs/cmd_manage.c */
int cmd_push(int argc, char **argv);    /* runs/cmd_push.c */
int cmd_pull(int argc, char **argv);    /* runs/cmd_push.c */
int cmd_fleet(int argc, char **argv);   /* runs/cmd_fleet.c */
int cmd_dump(int argc, char **argv);    /* runs/cmd_dump.c */
int cmd_iostat(int argc, char **argv);  /* analyze/cmd_iostat.c */
int cmd_report(int argc, char **argv);  /* analyze/cmd_report.c */
int cmd_compare(int argc, char **argv); /* analyze/cmd_compare.c */
int cmd_export(int argc, char **argv);  /* runs/cmd_export.c */
int cmd_metric(int argc, char **argv);  /* runs/cmd_metric.c */
int cmd_label(int argc, char **argv);   /* runs/cmd_label.c */
int cmd_vmstat(int argc, char **argv);  /* analyze/cmd_vmstat.c */
int cmd_capture(int argc, char **argv); /* capture/cmd_capture.c */
int cmd_record(int argc, char **argv);  /* record/cmd_record.c */

int cmd_plot(int argc, char **argv);    /* plots/cmd_plot.c */
int cmd_mail(int argc, char **argv);    /* plots/cmd_mail.c */
int cmd_replay(int argc, char **argv);  /* replay/cmd_replay.c */
int cmd_model(int argc, char **argv);   /* model/cmd_model.c */
int cmd_disk(int argc, char **argv);    /* model/cmd_disk.c */

#endif
