// Which NCCL variables a campaign's variants may change within one process: NCCL reads most of
// them once (NCCL_PARAM caches them at the first communicator), a few at every communicator, and
// some have an ncclConfig_t field preflight fills per communicator. A variant that changes one
// of the first kind is refused (exit 2) with the reason.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "comm/nccl_env.hpp"
#include "harness/config/config_node.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::comm {
namespace {

using Env = std::map<std::string, std::string>;

TEST(NcclScope, OnlyAlgoProtoTopoAndNetAreReadPerCommunicator) {
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_TOPO_FILE", "NCCL_NET"})
    EXPECT_EQ(nccl_scope(name), NcclScope::kPerCommunicator) << name;
  for (const char* name :
       {"NCCL_NVLS_ENABLE", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE",
        "NCCL_NTHREADS", "NCCL_IB_DISABLE", "NCCL_SHM_DISABLE", "NCCL_P2P_DISABLE",
        "NCCL_CUMEM_ENABLE", "NCCL_LOCAL_REGISTER", "NCCL_GRAPH_REGISTER", "NCCL_PXN_DISABLE",
        "NCCL_CROSS_NIC", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_SOMETHING_NEW"})
    EXPECT_EQ(nccl_scope(name), NcclScope::kPerProcess) << name;
}

TEST(NcclScope, VariablesWithAConfigFieldGoThroughIt) {
  for (const char* name : {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_CGA_CLUSTER_SIZE",
                           "NCCL_NVLS_NCHANNELS", "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_CTA_POLICY",
                           "NCCL_COLLNET_ENABLE", "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE"})
    EXPECT_EQ(nccl_scope(name), NcclScope::kConfigField) << name;
  std::vector<std::string> fields;
  for (const auto& f : nccl_config_fields()) fields.emplace_back(f.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"minCTAs", "maxCTAs", "cgaClusterSize", "nvlsCTAs",
                                              "nChannelsPerNetPeer", "CTAPolicy",
                                              "nvlinkCentricSched", "collnetEnable"}));
  // Each has a form check, so a bad value is exit 2 before anything runs.
  EXPECT_TRUE(check_nccl_variable("NCCL_MIN_CTAS", "many").has_value());
  EXPECT_FALSE(check_nccl_variable("NCCL_MIN_CTAS", "16").has_value());
  EXPECT_TRUE(check_nccl_variable("NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", "2").has_value());
}

TEST(NcclVariants, PerProcessVariableThatDiffersIsAConflict) {
  const auto c = per_process_conflict({Env{{"NCCL_BUFFSIZE", "4194304"}}, Env{}});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->variable, "NCCL_BUFFSIZE");
  EXPECT_EQ(c->variant, 1u);
  EXPECT_FALSE(c->value.has_value());  // unset in variant 1
  EXPECT_EQ(c->first_value, "4194304");
  const auto d = per_process_conflict({Env{}, Env{{"NCCL_NVLS_ENABLE", "0"}}});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->variable, "NCCL_NVLS_ENABLE");
  const auto problem = describe_conflict(*d, {"'nvls'", "'no-nvls'"});
  EXPECT_NE(problem.expected.find("NCCL reads it once per process"), std::string::npos);
  EXPECT_EQ(problem.found, "'0' in variant 'no-nvls', unset in variant 'nvls'");
}

TEST(NcclVariants, PerCommunicatorAndConfigVariablesMayDifferAndEqualValuesPass) {
  EXPECT_FALSE(per_process_conflict({Env{{"NCCL_ALGO", "ring"}}, Env{{"NCCL_ALGO", "tree"}},
                                     Env{{"NCCL_PROTO", "ll"}}})
                   .has_value());
  EXPECT_FALSE(
      per_process_conflict({Env{{"NCCL_MIN_CTAS", "8"}}, Env{{"NCCL_MIN_CTAS", "32"}}, Env{}})
          .has_value());
  EXPECT_FALSE(per_process_conflict({Env{{"NCCL_BUFFSIZE", "8M"}, {"NCCL_ALGO", "ring"}},
                                     Env{{"NCCL_BUFFSIZE", "8M"}, {"NCCL_ALGO", "tree"}}})
                   .has_value());
  // Not NCCL's to judge.
  EXPECT_FALSE(per_process_conflict({Env{{"OMP_NUM_THREADS", "4"}}, Env{}}).has_value());
}

std::vector<ConfigNode> variants_of(const std::string& yaml) {
  const ConfigNode root(YAML::Load(yaml), "campaign.yaml", "");
  return root.sequence("variants");
}

TEST(NcclVariants, CampaignIsRefusedAtTheKeyThatDiffers) {
  const auto set = variants_of(R"(
variants:
  - name: ring
    env: {NCCL_ALGO: ring}
  - name: big-buffers
    env: {NCCL_ALGO: ring, NCCL_BUFFSIZE: 8388608}
)");
  try {
    check_nccl_variants(set);
    FAIL() << "a variant changing NCCL_BUFFSIZE was accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("variants[1].env.NCCL_BUFFSIZE: expected the same NCCL_BUFFSIZE in every "
                        "variant"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("found '8388608' in variant 'big-buffers', unset in variant 'ring'"),
              std::string::npos)
        << what;
  }
  // Unset in the variant that differs: named at that variant.
  const auto unset = variants_of(R"(
variants:
  - name: no-nvls
    env: {NCCL_NVLS_ENABLE: 0}
  - name: default
)");
  try {
    check_nccl_variants(unset);
    FAIL() << "a variant leaving NCCL_NVLS_ENABLE unset after one that set it was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("variants[1]"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_nccl_variants(variants_of(R"(
variants:
  - {name: ring, env: {NCCL_ALGO: ring, NCCL_MIN_CTAS: 8}}
  - {name: tree, env: {NCCL_ALGO: tree, NCCL_MIN_CTAS: 32}}
)")));
}

}  // namespace
}  // namespace preflight::comm
