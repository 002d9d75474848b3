"""Business rules and transactions: views call these, these call ``models/``; nothing here knows HTTP."""
