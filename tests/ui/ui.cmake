# Studio tests (Qt Test). Model/logic tests run on the offscreen platform; rendering tests need a real
# GL-capable X display (the 3-D views render through an OpenGL context on an offscreen surface of the
# xcb platform), so they run under xvfb-run with QT_QPA_PLATFORM=xcb.
if(NOT TARGET yee_ui)
  return()
endif()

set(UI_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

yee_add_test(NAME ui_scene_tree SOURCES ${UI_TEST_DIR}/tst_SceneTreeModel.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_commands SOURCES ${UI_TEST_DIR}/tst_SceneCommands.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_properties SOURCES ${UI_TEST_DIR}/tst_PropertyModel.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_runner SOURCES ${UI_TEST_DIR}/tst_Runner.cpp LIBS yee_ui LABELS ui TIMEOUT 300)
yee_add_test(NAME ui_panels SOURCES ${UI_TEST_DIR}/tst_Panels.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_schema_rows SOURCES ${UI_TEST_DIR}/tst_SchemaRows.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_run_monitor SOURCES ${UI_TEST_DIR}/tst_RunMonitor.cpp LIBS yee_ui LABELS ui)
yee_add_test(NAME ui_daily_work SOURCES ${UI_TEST_DIR}/tst_DailyWork.cpp LIBS yee_ui LABELS ui TIMEOUT 300)
yee_add_test(NAME ui_optimize SOURCES ${UI_TEST_DIR}/tst_Optimize.cpp LIBS yee_ui LABELS ui TIMEOUT 600)
yee_add_test(NAME ui_material_editor SOURCES ${UI_TEST_DIR}/tst_MaterialEditor.cpp LIBS yee_ui LABELS ui)
foreach(t ui_scene_tree ui_commands ui_properties ui_runner ui_panels ui_schema_rows ui_run_monitor ui_daily_work
        ui_optimize ui_material_editor)
  set_target_properties(tst_${t} PROPERTIES AUTOMOC ON)
endforeach()

# The export dialog's bundle is compared with yee-run --export's.
if(TARGET yee-run)
  add_dependencies(tst_ui_daily_work yee-run)
  target_compile_definitions(tst_ui_daily_work PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
endif()

# yee_add_ui_render_test(NAME name SOURCES ...): like yee_add_test, run under xvfb-run on xcb.
find_program(YEE_XVFB_RUN xvfb-run)
function(yee_add_ui_render_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES" ${ARGN})
  set(exe tst_${T_NAME})
  add_executable(${exe} ${T_SOURCES})
  set_target_properties(${exe} PROPERTIES AUTOMOC ON)
  target_link_libraries(${exe} PRIVATE yee_ui Qt6::Test)
  target_compile_options(${exe} PRIVATE ${YEE_WARNINGS})
  target_include_directories(${exe} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(${exe} PRIVATE YEE_SOURCE_DIR="${CMAKE_SOURCE_DIR}" YEE_BINARY_DIR="${CMAKE_BINARY_DIR}")
  if(NOT YEE_XVFB_RUN)
    message(STATUS "xvfb-run not found: rendering test ${T_NAME} not registered")
    return()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${YEE_XVFB_RUN} -a -s "-screen 0 1280x800x24" $<TARGET_FILE:${exe}>)
  # One X server at a time: concurrent `xvfb-run -a` can race for the same display number.
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "ui;render" RESOURCE_LOCK xvfb
                       ENVIRONMENT "QT_QPA_PLATFORM=xcb;LIBGL_ALWAYS_SOFTWARE=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
endfunction()

yee_add_ui_render_test(NAME ui_render_scene SOURCES ${UI_TEST_DIR}/tst_SceneViewRender.cpp)
yee_add_ui_render_test(NAME ui_render_field SOURCES ${UI_TEST_DIR}/tst_FieldViewRender.cpp)
yee_add_ui_render_test(NAME ui_main_window SOURCES ${UI_TEST_DIR}/tst_MainWindow.cpp TIMEOUT 900)
if(TARGET yee-run)
  # The studio's run time is compared with yee-run's on the same scene.
  add_dependencies(tst_ui_main_window yee-run)
  target_compile_definitions(tst_ui_main_window PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
endif()
# Mode previews (the mode dock), mode-monitor and S-parameter plots.
yee_add_ui_render_test(NAME ui_mode_preview SOURCES ${UI_TEST_DIR}/tst_ModePreview.cpp TIMEOUT 600)
# The scripted end-to-end journey (screenshots of every step in <build>/ui-artifacts/journey_*.png).
yee_add_ui_render_test(NAME ui_journey SOURCES ${UI_TEST_DIR}/tst_Journey.cpp TIMEOUT 900)

# The studio must never link Qt 5 (Debian's VTK Qt module is built for it).
if(TARGET yee-studio)
  add_test(NAME ui_no_qt5 COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:yee-studio>
                                  -P ${UI_TEST_DIR}/check_no_qt5.cmake)
  set_tests_properties(ui_no_qt5 PROPERTIES LABELS ui TIMEOUT 60)
endif()
