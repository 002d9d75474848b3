"""Validate one address and a batch: ``VERIMAIL_API_KEY=sk_test_... python examples/validate.py``."""

from verimail import Client, RateLimitError

with Client() as client:  # VERIMAIL_API_KEY, VERIMAIL_BASE_URL (default http://127.0.0.1:8000)
    single = client.validate("deliverable@example.com")
    print("single:", single["email"], single["severity"])
    try:
        batch = client.validate_batch(["role@example.com", "disposable@example.com"])
    except RateLimitError as error:
        print("still limited after retries; try again in", error.retry_after, "s")
    else:
        for result in client.iter_results(batch["batchId"]):
            print("batch:", result["email"], result["severity"])
