# Selective build (docs/selective-build.md): a kernel library holding only
# the operators of an op list (`torchedge selective-build ... -o ops.yaml`),
# compiled for only its dtypes.
#
#   torchedge_selected_kernels(<target> <ops.yaml> <libraries>)
#
# <libraries>: comma-separated kernel libraries searched for the listed
# operators, lowest priority first (portable,prim,quantized[,cortex_m]).
# Generates (at configure time, again whenever the op list changes) the
# registration table register_selected_kernels() and builds <target> from
# the op files defining those kernels plus the used libraries' support/,
# with TORCHEDGE_SELECTED_DTYPES set (dtype_dispatch.h). TORCHEDGE_ROOT: the
# repository (default: PROJECT_SOURCE_DIR). Sets
# <target>_LIBRARIES in the caller's scope to the libraries used.
function(torchedge_selected_kernels target ops_yaml libraries)
  if(NOT TORCHEDGE_ROOT)
    set(TORCHEDGE_ROOT ${PROJECT_SOURCE_DIR})
  endif()
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 COMPONENTS Interpreter REQUIRED)
  endif()
  get_filename_component(ops_yaml "${ops_yaml}" ABSOLUTE)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/selective/${target})
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${TORCHEDGE_ROOT}/scripts/generate_selected_kernels.py
            --ops ${ops_yaml} --out ${gen} --libraries ${libraries}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "torchedge selective build (${ops_yaml}): ${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ops_yaml}
               ${TORCHEDGE_ROOT}/scripts/generate_selected_kernels.py)
  include(${gen}/selected_kernels.cmake)
  add_library(${target} STATIC ${TORCHEDGE_SELECTED_SOURCES} ${gen}/register_selected_kernels.cpp)
  target_include_directories(${target} PUBLIC ${TORCHEDGE_ROOT})
  target_compile_options(${target} PRIVATE ${TORCHEDGE_RUNTIME_FLAGS})
  target_compile_definitions(${target} PRIVATE TORCHEDGE_SELECTED_DTYPES=${TORCHEDGE_SELECTED_DTYPES})
  target_link_libraries(${target} PUBLIC torchedge_kernel)
  set(${target}_LIBRARIES ${TORCHEDGE_SELECTED_LIBRARIES} PARENT_SCOPE)
endfunction()
