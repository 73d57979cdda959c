"""vista aria-bridge: Project Aria Client SDK callbacks -> vista live wire protocol frames."""
