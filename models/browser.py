"""Verdict tokens a customer's server has confirmed (``POST /validate/confirm``).

A token is stateless until it is confirmed: only its id is kept then, so that a second confirmation of the
same token (a replay) is refused. The row is useless once the token has expired on its own, and the
retention sweep deletes it then.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String, func
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class ConfirmedToken(Base):
    __tablename__ = "confirmed_verdict_tokens"

    token_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    confirmed_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    # When the token expires by itself: past this the row guards nothing and is purged.
    expires_at: Mapped[datetime] = mapped_column(index=True)
