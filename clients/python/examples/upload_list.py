"""Upload a CSV list, show progress, wait, download: ``python examples/upload_list.py list.csv out.csv``."""

import sys

from verimail import Client


def progress(sent: int, total: int | None) -> None:
    print(f"\rsent {sent} of {total or '?'} bytes", end="", flush=True)


with Client() as client:
    job = client.upload(sys.argv[1], on_progress=progress)
    print(f"\n{job['id']}: {job['total']} rows")
    finished = client.wait_for_upload(job["id"], interval=2)
    print("finished:", finished["status"], finished["counts"])
    client.download(job["id"], sys.argv[2])
    print("results in", sys.argv[2])
