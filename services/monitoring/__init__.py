"""Monitored lists: a finished bulk list re-checked on a schedule, each change announced once.

``lists`` keeps, reads, reschedules and forgets them; ``runs`` starts the runs that are due (each an
ordinary bulk job); ``compare`` turns a finished run into ``address.changed`` and ``list.rechecked``;
``diff`` streams a run's changed rows.
"""
