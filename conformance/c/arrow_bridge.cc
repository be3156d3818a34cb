// Arrow C++ behind arrow_bridge.h: IPC reading, validation and the dictionary
// split, everything exchanged through the Arrow C Data Interface.
#include "arrow_bridge.h"

#include <arrow/array.h>
#include <arrow/c/bridge.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/record_batch.h>

#include <cstdio>
#include <memory>
#include <string>

struct cr_ipc_file {
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader;
};

static int fail(const arrow::Status &status, char *err, size_t err_size) {
  std::snprintf(err, err_size, "%s", status.ToString().c_str());
  return -1;
}

extern "C" cr_ipc_file *cr_ipc_open(const char *path, char *err, size_t err_size) {
  auto file = arrow::io::ReadableFile::Open(path);
  if (!file.ok()) {
    fail(file.status(), err, err_size);
    return nullptr;
  }
  auto reader = arrow::ipc::RecordBatchFileReader::Open(*file);
  if (!reader.ok()) {
    fail(reader.status(), err, err_size);
    return nullptr;
  }
  return new cr_ipc_file{*reader};
}

extern "C" void cr_ipc_close(cr_ipc_file *file) { delete file; }

extern "C" int cr_ipc_read(cr_ipc_file *file, int64_t batch, struct ArrowSchema *schema,
                           struct ArrowArray *array, char *err, size_t err_size) {
  if (batch < 0 || batch >= file->reader->num_record_batches()) {
    std::snprintf(err, err_size, "batch %lld of %d", (long long)batch,
                  file->reader->num_record_batches());
    return -1;
  }
  auto read = file->reader->ReadRecordBatch(static_cast<int>(batch));
  if (!read.ok()) return fail(read.status(), err, err_size);
  if ((*read)->num_columns() != 1) {
    std::snprintf(err, err_size, "batch %lld has %d columns, not 1", (long long)batch,
                  (*read)->num_columns());
    return -1;
  }
  arrow::Status status = arrow::ExportArray(*(*read)->column(0), array, schema);
  return status.ok() ? 0 : fail(status, err, err_size);
}

extern "C" int cr_validate_full(struct ArrowSchema *schema, struct ArrowArray *array, char *err,
                                size_t err_size) {
  auto imported = arrow::ImportArray(array, schema);
  if (!imported.ok()) return fail(imported.status(), err, err_size);
  arrow::Status valid = (*imported)->ValidateFull();
  arrow::Status back = arrow::ExportArray(**imported, array, schema);
  if (!back.ok()) return fail(back, err, err_size);
  return valid.ok() ? 0 : fail(valid, err, err_size);
}

extern "C" int cr_split_dictionary(struct ArrowSchema *schema, struct ArrowArray *array,
                                   struct ArrowSchema *indices_schema, struct ArrowArray *indices,
                                   struct ArrowSchema *dictionary_schema,
                                   struct ArrowArray *dictionary, char *err, size_t err_size) {
  auto imported = arrow::ImportArray(array, schema);
  if (!imported.ok()) return fail(imported.status(), err, err_size);
  auto dict = std::dynamic_pointer_cast<arrow::DictionaryArray>(*imported);
  if (!dict) {
    std::snprintf(err, err_size, "exported as %s, not a dictionary",
                  (*imported)->type()->ToString().c_str());
    return -1;
  }
  arrow::Status status = arrow::ExportArray(*dict->indices(), indices, indices_schema);
  if (!status.ok()) return fail(status, err, err_size);
  status = arrow::ExportArray(*dict->dictionary(), dictionary, dictionary_schema);
  if (!status.ok()) {
    indices->release(indices);
    indices_schema->release(indices_schema);
    return fail(status, err, err_size);
  }
  return 0;
}
