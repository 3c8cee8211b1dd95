# Scene module tests: file format, bad-input corpus, rasteriser, design map. Registered by
# tests/CMakeLists.txt, which includes every tests/*/*.cmake.
set(_yee_scene_dir ${CMAKE_CURRENT_LIST_DIR})
yee_add_test(NAME scene_json SOURCES ${_yee_scene_dir}/tst_scene_json.cpp LABELS scene TIMEOUT 120)
yee_add_test(NAME scene_bad_input SOURCES ${_yee_scene_dir}/tst_bad_scenes.cpp LABELS scene TIMEOUT 120)
yee_add_test(NAME scene_rasterizer SOURCES ${_yee_scene_dir}/tst_rasterizer.cpp LABELS scene TIMEOUT 300)
yee_add_test(NAME scene_schema SOURCES ${_yee_scene_dir}/tst_schema.cpp LABELS scene TIMEOUT 120)
yee_add_test(NAME scene_design_map SOURCES ${_yee_scene_dir}/tst_design_map.cpp LABELS scene TIMEOUT 120)
foreach(_t scene_json scene_bad_input scene_rasterizer scene_design_map scene_schema)
  set_target_properties(tst_${_t} PROPERTIES AUTOMOC ON)
endforeach()
unset(_t)
unset(_yee_scene_dir)
