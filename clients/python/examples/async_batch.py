"""Validate several addresses concurrently with the async client."""

import asyncio

from verimail import AsyncClient

ADDRESSES = ["deliverable@example.com", "undeliverable@example.com", "catch-all@example.com"]


async def main() -> None:
    async with AsyncClient() as client:
        results = await asyncio.gather(*(client.validate(address) for address in ADDRESSES))
        for result in results:
            print(result.get("email"), result.get("severity"))


asyncio.run(main())
