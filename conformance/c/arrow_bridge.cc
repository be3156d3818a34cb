// Arrow C++ behind arrow_bridge.h: IPC reading, validation and the dictionary
// split and assembly, everything exchanged through the Arrow C Data Interface.
#include "arrow_bridge.h"

#include <arrow/array.h>
#include <arrow/builder.h>
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

extern "C" int cr_make_dictionary(struct ArrowSchema *indices_schema, struct ArrowArray *indices,
                                  struct ArrowSchema *dictionary_schema,
                                  struct ArrowArray *dictionary, int ordered,
                                  struct ArrowSchema *schema, struct ArrowArray *array, char *err,
                                  size_t err_size) {
  auto index_array = arrow::ImportArray(indices, indices_schema);
  if (!index_array.ok()) {
    if (dictionary->release) dictionary->release(dictionary);
    if (dictionary_schema->release) dictionary_schema->release(dictionary_schema);
    return fail(index_array.status(), err, err_size);
  }
  auto values = arrow::ImportArray(dictionary, dictionary_schema);
  if (!values.ok()) return fail(values.status(), err, err_size);
  if (!arrow::is_integer((*index_array)->type_id())) {
    std::snprintf(err, err_size, "dictionary indices of type %s",
                  (*index_array)->type()->ToString().c_str());
    return -1;
  }
  // The constructor, not DictionaryArray::FromArrays: that one checks the indices.
  auto type = arrow::dictionary((*index_array)->type(), (*values)->type(), ordered != 0);
  arrow::DictionaryArray assembled(type, *index_array, *values);
  arrow::Status status = arrow::ExportArray(assembled, array, schema);
  return status.ok() ? 0 : fail(status, err, err_size);
}

template <typename Builder, typename ArrayType>
static arrow::Result<std::shared_ptr<arrow::Array>> integers_of(const ArrayType &from) {
  Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(from.length()));
  for (int64_t i = 0; i < from.length(); i++) {
    if (from.IsNull(i))
      builder.UnsafeAppendNull();
    else
      builder.UnsafeAppend(static_cast<typename Builder::value_type>(from.Value(i)));
  }
  return builder.Finish();
}

template <typename ArrayType>
static arrow::Result<std::shared_ptr<arrow::Array>> integers_of_width(const arrow::Array &from,
                                                                      int width) {
  const auto &typed = static_cast<const ArrayType &>(from);
  if (width == 1) return integers_of<arrow::Int8Builder>(typed);
  if (width == 4) return integers_of<arrow::Int32Builder>(typed);
  if (width == 8) return integers_of<arrow::Int64Builder>(typed);
  return arrow::Status::Invalid("integers of ", width, " bytes");
}

extern "C" int cr_as_integers(struct ArrowSchema *schema, struct ArrowArray *array, int width,
                              char *err, size_t err_size) {
  auto imported = arrow::ImportArray(array, schema);
  if (!imported.ok()) return fail(imported.status(), err, err_size);
  arrow::Result<std::shared_ptr<arrow::Array>> made;
  switch ((*imported)->type_id()) {
    case arrow::Type::BOOL:
      made = integers_of_width<arrow::BooleanArray>(**imported, width);
      break;
    case arrow::Type::FLOAT:
      made = integers_of_width<arrow::FloatArray>(**imported, width);
      break;
    case arrow::Type::DOUBLE:
      made = integers_of_width<arrow::DoubleArray>(**imported, width);
      break;
    default:
      made = arrow::Status::TypeError("not bool or float: ", (*imported)->type()->ToString());
  }
  if (!made.ok()) return fail(made.status(), err, err_size);
  arrow::Status status = arrow::ExportArray(**made, array, schema);
  return status.ok() ? 0 : fail(status, err, err_size);
}
