package main
import ("fmt";"github.com/coordsim/coordsim/coordinator")
func main(){fmt.Println(coordinator.PartitionFor("streams-001244",50))}
