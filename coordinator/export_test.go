package coordinator

// SetTestHooks installs synchronous-failure injection points that only
// tests may use.
func SetTestHooks(c *Coordinator, beforeSolicit, beforeCleanupRead func()) {
	c.hooks.beforeSolicit = beforeSolicit
	c.hooks.beforeCleanupRead = beforeCleanupRead
}
