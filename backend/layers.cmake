# The backend's modules, lowest first, and for each the modules its files may include directly.
# One table for the build (backend/CMakeLists.txt gives every module a library whose include path holds
# only itself and these modules, so an include that runs back up does not compile) and for the layer
# check (tests/arch/check_layers.cmake, which reads every #include "yee/<module>/..." in the sources).
# Keep each list closed under the lists it names: a module may include whatever its dependencies may.
set(YEE_MODULES core kernels cuda device comm telemetry files scene tiling modes solver detectors gradient run
                io bundle opt)
set(YEE_DEPS_core "")
set(YEE_DEPS_kernels core)
set(YEE_DEPS_cuda core kernels)
set(YEE_DEPS_device core kernels cuda)
set(YEE_DEPS_comm core kernels cuda device)
set(YEE_DEPS_telemetry core kernels cuda device comm)
set(YEE_DEPS_files core)
set(YEE_DEPS_scene core files)
set(YEE_DEPS_tiling core)
set(YEE_DEPS_modes core files scene)
set(YEE_DEPS_solver core kernels cuda device comm files scene tiling modes)
set(YEE_DEPS_detectors ${YEE_DEPS_solver} solver)
set(YEE_DEPS_gradient ${YEE_DEPS_detectors} detectors)
set(YEE_DEPS_run ${YEE_DEPS_gradient} gradient telemetry)
set(YEE_DEPS_io ${YEE_DEPS_run} run)
set(YEE_DEPS_bundle ${YEE_DEPS_io} io)
set(YEE_DEPS_opt ${YEE_DEPS_io} io)
