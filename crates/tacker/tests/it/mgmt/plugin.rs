//! An operation through the example out-of-process (gRPC) driver.
