"""The chess event: python-chess (GPL-3.0-or-later) is imported only inside this package."""
