"""The facts of Five Crowns, as pure functions: no web, database or template code here."""
