"""Real, local stand-ins for remote services (HTTP on 127.0.0.1 only), shared by the test areas."""
