//! glTF 2.0 binary export of a trajectory.
