# Golden results: every example scene run by yee-run (forward, and --grad for scenes with designs),
# compared bit for bit with the results main produced at 180e967, before the round-2 refactor
# (tests/golden/README.md says how the files were made and when they may be regenerated).
set(_golden ${CMAKE_CURRENT_LIST_DIR})
# Seven yee-run processes: allow for a loaded machine (Qt Test stops a test function after 300 s by default).
yee_add_test(NAME golden SOURCES ${_golden}/tst_golden.cpp LABELS "golden;cli" TIMEOUT 1500
             ENV "QTEST_FUNCTION_TIMEOUT=1400000")
add_dependencies(tst_golden yee-run)
target_compile_definitions(tst_golden PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
